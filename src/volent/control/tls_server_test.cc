// TLS on the connection skeleton (core/http/server.h, ServerOptions::tls)
// with the control API's context (tls_context.h) and the node's own
// certificates (tls_certificates.h), over loopback sockets: the handler
// sees the verified client certificate (subject, SHA-256, OU values); no
// certificate is served too when optional; a certificate of another CA,
// plain HTTP, and no certificate where one is required get no answer.
// Through the control API's own server and authenticator: a certificate
// past its validity is refused on a resumed TLS session (1.3 and 1.2) as in
// a full handshake, since OpenSSL checks its dates only in a full one.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <gtest/gtest.h>

#include "core/http/loopback_client.h"
#include "core/http/server.h"
#include "volent/access/tls_certificates.h"
#include "volent/control/api.h"
#include "volent/control/auth.h"
#include "volent/control/http_server.h"
#include "volent/control/test_fixtures.h"
#include "volent/control/tls_context.h"
#include "volent/store/agent_store.h"

namespace volent::control {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace httpd = core::httpd;

// Answers every request with what the transport knows of the client's certificate.
class PeerHandler : public core::httpd::Handler {
 public:
  void Handle(core::httpd::Request request, core::httpd::Reply reply) override {
    const core::httpd::PeerCertificate& cert = reply.peer().certificate;
    std::string body = "none";
    if (cert.present) {
      body = cert.subject + "|" + cert.sha256 + "|";
      for (const auto& unit : cert.units) body += unit + ";";
    }
    core::httpd::Response response(http::status::ok, request.version());
    response.keep_alive(request.keep_alive());
    response.body() = body;
    response.prepare_payload();
    reply.Send(std::move(response));
  }
  core::httpd::Response Refuse(const core::httpd::Refusal& refusal) override {
    core::httpd::Response response(static_cast<http::status>(refusal.status), 11);
    response.prepare_payload();
    return response;
  }
};

std::string TempDir(const std::string& name) {
  std::string dir = (std::filesystem::temp_directory_path() /
                     (name + "-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                        .string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

class TlsServerTest : public ::testing::Test {
 protected:
  void SetUp() override { data_ = TempDir("volent-tls"); }
  void TearDown() override {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
    std::filesystem::remove_all(data_);
  }

  void Start(bool tokens) {
    manifest::ControlConfig config;
    config.tls = true;
    config.mtls = true;
    config.tokens = tokens;
    auto tls = MakeServerTls(config, data_, "127.0.0.1", nullptr);
    ASSERT_TRUE(tls.ok()) << tls.message();
    core::httpd::ServerOptions options;
    options.port = 0;
    options.read_timeout = std::chrono::milliseconds(5000);
    options.tls = tls->context;
    auto server = core::httpd::Server::Bind(handler_, options);
    ASSERT_TRUE(server.ok()) << server.message();
    server_ = std::move(*server);
    thread_ = std::thread([this] { server_->Run(); });
  }

  // One GET / over TLS, trusting the node's CA, with `client` (if any) as
  // the client certificate; the body, or "" when no answer came.
  std::string Get(const access::IssuedCertificate* client) {
    net::io_context ioc;
    net::ssl::context ctx(net::ssl::context::tls_client);
    ctx.load_verify_file(access::NodeTlsPathsOf(data_).ca_certificate);
    ctx.set_verify_mode(net::ssl::verify_peer);
    if (client) {
      ctx.use_certificate(net::buffer(client->certificate_pem), net::ssl::context::pem);
      ctx.use_private_key(net::buffer(client->key_pem), net::ssl::context::pem);
    }
    beast::ssl_stream<beast::tcp_stream> stream(ioc, ctx);
    beast::error_code ec;
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(5));
    beast::get_lowest_layer(stream).socket().connect(
        {net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_->port())}, ec);
    if (ec) return "";
    stream.handshake(net::ssl::stream_base::client, ec);
    if (ec) return "";
    http::request<http::empty_body> request(http::verb::get, "/", 11);
    request.set(http::field::host, "127.0.0.1");
    http::write(stream, request, ec);
    if (ec) return "";
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response, ec);
    if (ec) return "";
    return response.body();
  }

  std::string data_;
  PeerHandler handler_;
  std::unique_ptr<core::httpd::Server> server_;
  std::thread thread_;
};

TEST_F(TlsServerTest, TheHandlerSeesTheVerifiedClientCertificate) {
  Start(true);
  auto alice = access::IssueClientCertificate(data_, "alice", {"approver", "reader"}, 1);
  ASSERT_TRUE(alice.ok()) << alice.message();
  EXPECT_EQ(alice->subject, "CN=alice,OU=reader,OU=approver");
  EXPECT_EQ(Get(&*alice), alice->subject + "|" + alice->sha256 + "|approver;reader;");
  EXPECT_EQ(alice->sha256.size(), 64u);
}

TEST_F(TlsServerTest, WithoutACertificateItIsServedWhenOptional) {
  Start(true);
  EXPECT_EQ(Get(nullptr), "none");
}

TEST_F(TlsServerTest, WithoutACertificateNothingIsServedWhenRequired) {
  Start(false);
  EXPECT_EQ(Get(nullptr), "");
  auto bob = access::IssueClientCertificate(data_, "bob", {"reader"}, 1);
  ASSERT_TRUE(bob.ok()) << bob.message();
  EXPECT_EQ(Get(&*bob), bob->subject + "|" + bob->sha256 + "|reader;");
}

TEST_F(TlsServerTest, ACertificateOfAnotherCaGetsNoAnswer) {
  Start(true);
  std::string other = TempDir("volent-tls-other");
  ASSERT_TRUE(access::EnsureNodeTls(other, "127.0.0.1").ok());
  auto mallory = access::IssueClientCertificate(other, "mallory", {"admin"}, 1);
  std::filesystem::remove_all(other);
  ASSERT_TRUE(mallory.ok()) << mallory.message();
  EXPECT_EQ(Get(&*mallory), "");
  EXPECT_EQ(Get(nullptr), "none");  // the server goes on
}

TEST_F(TlsServerTest, PlainHttpGetsNoHttpAnswer) {
  Start(true);
  core::httpd::testing::LoopbackClient client(server_->port());
  ASSERT_TRUE(client.Send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(client.ReadAll().rfind("HTTP/", 0), std::string::npos);
}

TEST_F(TlsServerTest, TheNodesOwnFilesAreMadeOnceWithPrivateKeys) {
  auto made = access::EnsureNodeTls(data_, "10.1.2.3");
  ASSERT_TRUE(made.ok()) << made.message();
  EXPECT_TRUE(*made);
  const access::NodeTlsPaths paths = access::NodeTlsPathsOf(data_);
  struct stat st {};
  ASSERT_EQ(stat(paths.ca_key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(paths.key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto again = access::EnsureNodeTls(data_, "10.1.2.3");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

// The control API's server over TLS with client certificates only, its
// authenticator on a clock the test moves.
class ResumedSessionTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    data_ = TempDir("volent-tls-resume");
    now_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
    manifest::ControlConfig config;
    config.tls = true;
    config.mtls = true;
    config.tokens = false;
    auto tls = MakeServerTls(config, data_, "127.0.0.1", nullptr);
    ASSERT_TRUE(tls.ok()) << tls.message();
    auto store = store::AgentStore::Open("");
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    runs_.AddApproval(7, "r1", "refund");
    AuthOptions auth;
    auth.tokens = false;
    auth.mtls = true;
    auth.limits = FailureLimits{1e9, 1e9};
    auth.clock = [this] { return now_ms_.load(); };
    auth_ = std::make_unique<Authenticator>(auth);
    ApiContext ctx;
    ctx.store = store_.get();
    ctx.runs = &runs_;
    ctx.auth = auth_.get();
    api_ = std::make_unique<ControlApi>(ctx);
    ServerOptions options;
    options.port = 0;
    options.threads = 1;
    options.tls = tls->context;
    auto server = HttpServer::Bind(*api_, options);
    ASSERT_TRUE(server.ok()) << server.message();
    server_ = std::move(*server);
    thread_ = std::thread([this] { server_->Run(); });
    // One client context for every connection, at most TLS GetParam().
    client_ = std::make_unique<net::ssl::context>(net::ssl::context::tls_client);
    SSL_CTX_set_max_proto_version(client_->native_handle(), GetParam());
    client_->load_verify_file(access::NodeTlsPathsOf(data_).ca_certificate);
    client_->set_verify_mode(net::ssl::verify_peer);
    auto alice = access::IssueClientCertificate(data_, "alice", {"reader"}, 1);  // valid one day
    ASSERT_TRUE(alice.ok()) << alice.message();
    client_->use_certificate(net::buffer(alice->certificate_pem), net::ssl::context::pem);
    client_->use_private_key(net::buffer(alice->key_pem), net::ssl::context::pem);
  }
  void TearDown() override {
    if (session_) SSL_SESSION_free(session_);
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
    std::filesystem::remove_all(data_);
  }

  struct Answer {
    int status = 0;       // 0: no answer
    bool resumed = false; // the handshake resumed the session kept from before
  };

  // GET /v1/approvals with the certificate, resuming the session of the
  // previous call when there is one, and keeping this call's.
  Answer Get() {
    Answer out;
    net::io_context ioc;
    beast::ssl_stream<beast::tcp_stream> stream(ioc, *client_);
    if (session_) SSL_set_session(stream.native_handle(), session_);
    beast::error_code ec;
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(5));
    beast::get_lowest_layer(stream).socket().connect(
        {net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_->port())}, ec);
    if (ec) return out;
    stream.handshake(net::ssl::stream_base::client, ec);
    if (ec) return out;
    out.resumed = SSL_session_reused(stream.native_handle()) == 1;
    http::request<http::empty_body> request(http::verb::get, "/v1/approvals", 11);
    request.set(http::field::host, "127.0.0.1");
    request.keep_alive(false);
    http::write(stream, request, ec);
    if (ec) return out;
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response, ec);
    if (ec) return out;
    out.status = response.result_int();
    // TLS 1.3 sends its tickets after the handshake: read with the answer.
    if (SSL_SESSION* kept = SSL_get1_session(stream.native_handle())) {
      if (session_) SSL_SESSION_free(session_);
      session_ = kept;
    }
    // Closed as if shut down, so OpenSSL keeps the session resumable
    // (without a close_notify sent, it marks the session unusable).
    SSL_set_shutdown(stream.native_handle(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    return out;
  }

  std::string data_;
  std::atomic<int64_t> now_ms_{0};
  std::unique_ptr<store::AgentStore> store_;
  testing::FakeRuns runs_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<ControlApi> api_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  std::unique_ptr<net::ssl::context> client_;
  SSL_SESSION* session_ = nullptr;
};

TEST_P(ResumedSessionTest, AnExpiredCertificateIsRefusedOnAResumedSession) {
  Answer first = Get();
  ASSERT_EQ(first.status, 200);
  EXPECT_FALSE(first.resumed);
  Answer again = Get();
  ASSERT_EQ(again.status, 200);
  ASSERT_TRUE(again.resumed) << "the client could not resume its session: the test would prove nothing";
  // Two days on, the certificate (one day) has expired: the resumed session
  // carries it still, and still it is refused.
  now_ms_ += 2LL * 24 * 3600 * 1000;
  Answer late = Get();
  EXPECT_TRUE(late.resumed);
  EXPECT_EQ(late.status, 401);
  // Before its validity began (an hour before it was issued): refused too.
  now_ms_ -= 2LL * 24 * 3600 * 1000 + 2 * 3600 * 1000;
  Answer early = Get();
  EXPECT_EQ(early.status, 401);
}

INSTANTIATE_TEST_SUITE_P(Tls, ResumedSessionTest, ::testing::Values(TLS1_3_VERSION, TLS1_2_VERSION),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == TLS1_3_VERSION ? std::string("Tls13") : std::string("Tls12");
                         });

}  // namespace
}  // namespace volent::control
