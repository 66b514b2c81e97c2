// The egress gate over https (gate.h, http_exchange.h) against a TLS server
// on 127.0.0.1 started here with a certificate made here. Its own binary:
// the trusted case points OpenSSL's default trust store at that
// certificate through SSL_CERT_FILE, which no other test may see.
#include "volent/egress/gate.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "volent/egress/test_http_server.h"

namespace volent::egress {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

struct KeyAndCert {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, EVP_PKEY_free};
  std::unique_ptr<X509, decltype(&X509_free)> cert{nullptr, X509_free};
};

// A self-signed certificate for the IP address `san_ip`.
KeyAndCert MakeCert(const char* san_ip) {
  KeyAndCert out;
  out.key.reset(EVP_EC_gen("P-256"));
  out.cert.reset(X509_new());
  X509* cert = out.cert.get();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, out.key.get());
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("egress test"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  const std::string san = std::string("IP:") + san_ip;
  for (auto [nid, value] : {std::pair<int, std::string>{NID_subject_alt_name, san},
                            {NID_basic_constraints, "critical,CA:TRUE"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(cert, out.key.get(), EVP_sha256());
  return out;
}

std::string WritePem(const KeyAndCert& kc, const std::string& file) {
  const std::string path =
      (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + file)).string();
  FILE* f = std::fopen(path.c_str(), "w");
  PEM_write_X509(f, kc.cert.get());
  std::fclose(f);
  return path;
}

// Accepts one TLS connection and answers one request with "secure".
// Not a TestServer (test_http_server.h): that speaks plain HTTP only, and a TLS mode would double it for one test.
class TlsServer {
 public:
  explicit TlsServer(const KeyAndCert& kc) : tls_(ssl::context::tls_server), acceptor_(ioc_) {
    SSL_CTX_use_certificate(tls_.native_handle(), kc.cert.get());
    SSL_CTX_use_PrivateKey(tls_.native_handle(), kc.key.get());
    tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { Serve(); });
  }
  ~TlsServer() {
    if (!accepted_) {
      net::io_context ioc;
      tcp::socket knock(ioc);
      boost::system::error_code ec;
      knock.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_), ec);
    }
    thread_.join();
  }
  int port() const { return port_; }
  bool served() const { return served_; }
  bool saw_authorization() const { return saw_authorization_; }

 private:
  void Serve() {
    boost::system::error_code ec;
    tcp::socket socket = acceptor_.accept(ec);
    accepted_ = true;
    if (ec) return;
    ssl::stream<tcp::socket> stream(std::move(socket), tls_);
    stream.handshake(ssl::stream_base::server, ec);
    if (ec) return;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(stream, buffer, request, ec);
    if (ec) return;
    saw_authorization_ = request.count(http::field::authorization) > 0;
    // Set before the answer goes out: the client may check it as soon as it
    // has read the answer, before this thread runs again.
    served_ = true;
    http::response<http::string_body> response(http::status::ok, 11);
    response.body() = "secure";
    response.prepare_payload();
    http::write(stream, response, ec);
    stream.shutdown(ec);
  }

  net::io_context ioc_;
  ssl::context tls_;
  tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<bool> accepted_{false};
  std::atomic<bool> served_{false};
  std::atomic<bool> saw_authorization_{false};
  std::thread thread_;
};

Gate TlsGate(int port) { return Gate({{"tls", "https", "", "127.0.0.0/8", port, "", {}}}); }

HttpRequest Get(int port) {
  HttpRequest r;
  r.url = "https://127.0.0.1:" + std::to_string(port) + "/";
  return r;
}

// In order: the untrusted case must build its gate before SSL_CERT_FILE is set.
TEST(GateTls, CertificatesAreVerified) {
  KeyAndCert right = MakeCert("127.0.0.1");
  KeyAndCert wrong_ip = MakeCert("127.0.0.2");
  ASSERT_TRUE(right.key && right.cert && wrong_ip.key && wrong_ip.cert);

  {  // the system trust store does not know this certificate
    TlsServer server(right);
    SendResult r = TlsGate(server.port()).Send("tls", Get(server.port()));
    EXPECT_EQ(r.outcome, Outcome::kNotSent) << r.reason;
    EXPECT_NE(r.reason.find("certificate verify failed"), std::string::npos) << r.reason;
    EXPECT_FALSE(server.served());
  }

  // Trust exactly these two certificates from here on.
  const std::string right_pem = WritePem(right, "egress-tls-right.pem");
  const std::string wrong_pem = WritePem(wrong_ip, "egress-tls-wrong.pem");
  const std::string bundle =
      (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-egress-tls-bundle.pem")).string();
  {
    FILE* f = std::fopen(bundle.c_str(), "w");
    PEM_write_X509(f, right.cert.get());
    PEM_write_X509(f, wrong_ip.cert.get());
    std::fclose(f);
  }
  setenv("SSL_CERT_FILE", bundle.c_str(), 1);
  setenv("SSL_CERT_DIR", "/nonexistent", 1);

  {  // trusted, and it names 127.0.0.1
    TlsServer server(right);
    SendResult r = TlsGate(server.port()).Send("tls", Get(server.port()));
    ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
    EXPECT_EQ(r.response.status, 200);
    EXPECT_EQ(r.response.body, "secure");
  }
  {  // trusted, but issued for another address
    TlsServer server(wrong_ip);
    SendResult r = TlsGate(server.port()).Send("tls", Get(server.port()));
    EXPECT_EQ(r.outcome, Outcome::kNotSent) << r.reason;
    EXPECT_NE(r.reason.find("TLS handshake"), std::string::npos) << r.reason;
    EXPECT_FALSE(server.served());
  }
  {  // a redirect from http to https on the same address: another origin (the scheme), so no credentials
    TlsServer tls_server(right);
    const std::string location = "https://127.0.0.1:" + std::to_string(tls_server.port()) + "/";
    testing::TestServer http_server("127.0.0.1", [location](const testing::Seen&) {
      return testing::Reply{307, {{"Location", location}}, ""};
    });
    const int http_port = http_server.port();
    Gate gate({{"tls", "http", "", "127.0.0.0/8", http_port, "", {}},
               {"tls", "https", "", "127.0.0.0/8", tls_server.port(), "", {}}});
    HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(http_port) + "/";
    request.headers = {{"Authorization", "Bearer secret"}};
    SendResult r = gate.Send("tls", request);
    ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
    EXPECT_EQ(r.response.body, "secure");
    EXPECT_EQ(r.redirects.size(), 1u);
    EXPECT_TRUE(tls_server.served());
    EXPECT_FALSE(tls_server.saw_authorization());
  }
  std::remove(right_pem.c_str());
  std::remove(wrong_pem.c_str());
  std::remove(bundle.c_str());
}

}  // namespace
}  // namespace volent::egress
