// The egress gate end to end (gate.h) against HTTP servers on 127.0.0.1
// started here. Loopback is a forbidden range, so these requests are allowed
// only through a cidr entry for 127.0.0.0/8 — which is itself under test.
#include "volent/egress/gate.h"

#include <gtest/gtest.h>

#include <optional>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "volent/egress/test_http_server.h"

namespace volent::egress {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using testing::Reply;
using testing::Seen;
using testing::TestServer;

// A TestServer (test_http_server.h) answers every request with 200 "hello"
// unless told otherwise; Serving(reply) makes it answer with `reply`.
TestServer::Handler Serving(Reply reply) {
  return [reply](const Seen&) { return reply; };
}

// The first request the server saw, if any.
std::optional<Seen> Received(const TestServer& server) {
  auto seen = server.Requests();
  if (seen.empty()) return std::nullopt;
  return seen.front();
}

Gate LocalGate(int port = 0) {
  return Gate({{"local", "http", "", "127.0.0.0/8", port, "", {}}, {"local-tls", "https", "", "127.0.0.0/8", port, "", {}}});
}

HttpRequest Get(std::string url) {
  HttpRequest r;
  r.url = std::move(url);
  r.timeout_ms = 10000;
  return r;
}

TEST(Gate, CidrEntryReachesLoopback) {
  TestServer server;
  SendResult r = LocalGate(server.port()).Send("local", Get(server.Url("/hello?x=1")));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body, "hello");
  EXPECT_EQ(r.pinned_address, "127.0.0.1:" + std::to_string(server.port()));
  auto got = Received(server);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->target, "/hello?x=1");
  EXPECT_EQ(got->method, "GET");
  EXPECT_EQ(got->Get("Host"), "127.0.0.1:" + std::to_string(server.port()));
}

TEST(Gate, HostEntriesNeverReachLoopback) {
  TestServer server;
  const std::string port = std::to_string(server.port());
  Gate star({{"c", "http", "*", "", 0, "", {}}, {"c", "http", "*", "", server.port(), "", {}}});
  SendResult r = star.Send("c", Get(server.Url()));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("127.0.0.1 is loopback"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.pinned_address.empty());

  Gate localhost({{"c", "http", "localhost", "", server.port(), "", {}}});
  r = localhost.Send("c", Get("http://localhost:" + port + "/"));
  EXPECT_EQ(r.outcome, Outcome::kDenied) << r.reason;
  EXPECT_NE(r.reason.find("loopback"), std::string::npos) << r.reason;

  r = star.Send("c", Get("http://[::ffff:127.0.0.1]:" + port + "/"));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("loopback"), std::string::npos) << r.reason;
  r = star.Send("c", Get("http://169.254.169.254/latest/meta-data/"));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("cloud-metadata"), std::string::npos) << r.reason;
  EXPECT_FALSE(Received(server)) << "a denied request reached the server";
}

TEST(Gate, NonCanonicalHostsAreDenied) {
  Gate star({{"c", "http", "*", "", 0, "", {}}});
  for (const char* url : {"http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://2130706433/",
                          "http://127.0.0.01/", "http://user@127.0.0.1/"}) {
    SendResult r = star.Send("c", Get(url));
    EXPECT_EQ(r.outcome, Outcome::kDenied) << url;
    EXPECT_NE(r.reason.find("URL"), std::string::npos) << r.reason;
  }
}

TEST(Gate, AllowlistMismatchIsDenied) {
  TestServer server;
  SendResult r = LocalGate(server.port()).Send("other", Get(server.Url()));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("capability \"other\""), std::string::npos) << r.reason;
  r = LocalGate(server.port() == 65535 ? 1 : server.port() + 1).Send("local", Get(server.Url()));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("port"), std::string::npos) << r.reason;
  EXPECT_FALSE(Received(server));
}

TEST(Gate, HeaderInjectionIsDenied) {
  TestServer server;
  Gate gate = LocalGate(server.port());
  for (const auto& [name, value] : Headers{{"X-A", "v\r\nX-Evil: 1"}, {"X-A", "v\nX-Evil: 1"},
                                           {"X-A\r\nX-Evil", "1"}, {"X-A", std::string("v\0w", 3)},
                                           {"X A", "1"}, {"", "1"}}) {
    HttpRequest request = Get(server.Url());
    request.headers = {{name, value}};
    SendResult r = gate.Send("local", request);
    EXPECT_EQ(r.outcome, Outcome::kDenied) << name;
  }
  HttpRequest bad_method = Get(server.Url());
  bad_method.method = "GET /x HTTP/1.1\r\n";
  EXPECT_EQ(gate.Send("local", bad_method).outcome, Outcome::kDenied);
  EXPECT_FALSE(Received(server));
}

TEST(Gate, IdempotencyKeyArrivesAndHopByHopHeadersAreStripped) {
  TestServer server;
  HttpRequest request = Get(server.Url("/effects"));
  request.method = "POST";
  request.body = "{\"a\":1}";
  request.headers = {{"Idempotency-Key", "refund-bot/run-7/3"},
                     {"Content-Type", "application/json"},
                     {"Connection", "keep-alive, X-Custom"},
                     {"Keep-Alive", "timeout=5"},
                     {"Proxy-Authorization", "Basic eDp5"},
                     {"Proxy-Connection", "keep-alive"},
                     {"TE", "trailers"},
                     {"Trailer", "X-Checksum"},
                     {"Transfer-Encoding", "chunked"},
                     {"Upgrade", "websocket"},
                     {"Host", "evil.example"},
                     {"Forwarded", "for=10.0.0.1"},
                     {"X-Forwarded-For", "10.0.0.1"},
                     {"X-Forwarded-Host", "evil.example"},
                     {"Content-Length", "999"}};
  SendResult r = LocalGate(server.port()).Send("local", request);
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  auto got = Received(server);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->Get("Idempotency-Key"), "refund-bot/run-7/3");
  EXPECT_EQ(got->Get("Content-Type"), "application/json");
  EXPECT_EQ(got->body, "{\"a\":1}");
  EXPECT_EQ(got->Get("Content-Length"), "7");
  EXPECT_EQ(got->Get("Host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(got->Get("Connection"), "close");
  for (const char* dropped : {"Keep-Alive", "Proxy-Authorization", "Proxy-Connection", "TE", "Trailer",
                              "Transfer-Encoding", "Upgrade", "Forwarded", "X-Forwarded-For", "X-Forwarded-Host"}) {
    EXPECT_EQ(got->Count(dropped), 0u) << dropped;
  }
  EXPECT_EQ(got->Count("Host"), 1u);
}

TEST(Gate, ResponseLargerThanTheLimitFails) {
  Reply options;
  options.body = std::string(5000, 'x');
  TestServer server("127.0.0.1", Serving(options));
  HttpRequest request = Get(server.Url());
  request.max_response_bytes = 1000;
  SendResult r = LocalGate(server.port()).Send("local", request);
  EXPECT_EQ(r.outcome, Outcome::kFailed) << r.reason << " body " << r.response.body.size();
  EXPECT_NE(r.reason.find("max_response_bytes (1000 bytes)"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.response.body.empty());
}

TEST(Gate, ChunkedResponseLargerThanTheLimitFails) {
  Reply options;
  options.body = std::string(5000, 'x');
  options.chunked = true;
  TestServer server("127.0.0.1", Serving(options));
  HttpRequest request = Get(server.Url());
  request.max_response_bytes = 1000;
  SendResult r = LocalGate(server.port()).Send("local", request);
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.reason.find("max_response_bytes (1000 bytes)"), std::string::npos) << r.reason;
}

TEST(Gate, ChunkedResponseIsAnswered) {
  Reply options;
  options.body = "chunked body";
  options.chunked = true;
  TestServer server("127.0.0.1", Serving(options));
  SendResult r = LocalGate(server.port()).Send("local", Get(server.Url()));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.body, "chunked body");
}

TEST(Gate, ResponseAtTheLimitIsAnswered) {
  Reply options;
  options.body = std::string(1000, 'x');
  TestServer server("127.0.0.1", Serving(options));
  HttpRequest request = Get(server.Url());
  request.max_response_bytes = 1000;
  SendResult r = LocalGate(server.port()).Send("local", request);
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.body.size(), 1000u);
}

TEST(Gate, SilentServerTimesOut) {
  Reply options;
  options.silent = true;
  TestServer server("127.0.0.1", Serving(options));
  HttpRequest request = Get(server.Url());
  request.timeout_ms = 300;
  SendResult r = LocalGate(server.port()).Send("local", request);
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.reason.find("time limit"), std::string::npos) << r.reason;
  EXPECT_TRUE(Received(server));  // it was sent, so the outcome is "failed", not "not sent"
}

TEST(Gate, HeadAndNoContentHaveNoBody) {
  TestServer head_server;  // answers with Content-Length: 5, which HEAD does not read
  HttpRequest head = Get(head_server.Url());
  head.method = "HEAD";
  SendResult r = LocalGate(head_server.port()).Send("local", head);
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 200);
  EXPECT_TRUE(r.response.body.empty());
  auto got = Received(head_server);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->method, "HEAD");

  Reply options;
  options.status = 204;
  options.body = "";
  TestServer no_content("127.0.0.1", Serving(options));
  r = LocalGate(no_content.port()).Send("local", Get(no_content.Url()));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 204);
}

TEST(Gate, RedirectsAreReturnedWhenNotToBeFollowed) {
  Reply options;
  options.status = 302;
  options.headers = {{"Location", "http://169.254.169.254/latest/meta-data/"}};
  options.body = "";
  TestServer server("127.0.0.1", Serving(options));
  HttpRequest request = Get(server.Url());
  request.max_redirects = 0;  // gate_redirect_test.cc follows them
  SendResult r = LocalGate(server.port()).Send("local", request);
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 302);
  EXPECT_TRUE(r.redirects.empty());
  bool location = false;
  for (const auto& [name, value] : r.response.headers) location = location || name == "Location";
  EXPECT_TRUE(location);
}

TEST(Gate, ARedirectToMetadataIsDenied) {
  Reply options;
  options.status = 302;
  options.headers = {{"Location", "http://169.254.169.254/latest/meta-data/"}};
  options.body = "";
  TestServer server("127.0.0.1", Serving(options));
  Gate gate({{"c", "http", "", "127.0.0.0/8", server.port(), "", {}}, {"c", "http", "*", "", 0, "", {}}});
  SendResult r = gate.Send("c", Get(server.Url()));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("cloud-metadata"), std::string::npos) << r.reason;
  EXPECT_EQ(r.redirects, std::vector<std::string>{"http://169.254.169.254/latest/meta-data/"});
}

TEST(Gate, RefusedConnectionIsNotSent) {
  int port = 0;
  {
    net::io_context ioc;
    tcp::acceptor acceptor(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    port = acceptor.local_endpoint().port();
  }  // closed: nothing listens there now
  SendResult r = LocalGate(port).Send("local", Get("http://127.0.0.1:" + std::to_string(port) + "/"));
  EXPECT_EQ(r.outcome, Outcome::kNotSent) << r.reason;
  EXPECT_NE(r.reason.find("could not connect"), std::string::npos) << r.reason;
}

TEST(Gate, TlsHandshakeFailureIsNotSent) {
  TestServer server;  // speaks plain HTTP: the TLS handshake cannot succeed
  SendResult r = LocalGate(server.port())
                     .Send("local-tls", Get("https://127.0.0.1:" + std::to_string(server.port()) + "/"));
  EXPECT_EQ(r.outcome, Outcome::kNotSent) << r.reason;
  EXPECT_NE(r.reason.find("TLS handshake"), std::string::npos) << r.reason;
}

TEST(Gate, UnresolvableNameIsNotSent) {
  Gate gate({{"c", "http", "*.invalid", "", 0, "", {}}});
  HttpRequest request = Get("http://no-such-host.invalid/");
  request.timeout_ms = 3000;  // a resolver without network may wait instead of failing at once
  SendResult r = gate.Send("c", request);
  EXPECT_EQ(r.outcome, Outcome::kNotSent) << r.reason;
  EXPECT_NE(r.reason.find("could not resolve no-such-host.invalid"), std::string::npos) << r.reason;
}

TEST(Gate, NonPositiveTimeoutIsDenied) {
  HttpRequest request = Get("http://127.0.0.1/");
  request.timeout_ms = 0;
  EXPECT_EQ(LocalGate().Send("local", request).outcome, Outcome::kDenied);
}

TEST(Gate, ManyThreadsSendAtOnce) {
  constexpr int kThreads = 8;
  std::vector<std::unique_ptr<TestServer>> servers;
  for (int i = 0; i < kThreads; ++i) servers.push_back(std::make_unique<TestServer>());
  std::vector<manifest::AllowEntry> entries;
  for (const auto& server : servers) entries.push_back({"local", "http", "", "127.0.0.0/8", server->port(), "", {}});
  const Gate gate(entries);
  std::vector<SendResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] { results[i] = gate.Send("local", Get(servers[i]->Url("/" + std::to_string(i)))); });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(results[i].outcome, Outcome::kAnswered) << results[i].reason;
    auto got = Received(*servers[i]);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->target, "/" + std::to_string(i));
  }
}

TEST(Gate, OutcomeNames) {
  EXPECT_EQ(OutcomeName(Outcome::kDenied), "denied");
  EXPECT_EQ(OutcomeName(Outcome::kNotSent), "not-sent");
  EXPECT_EQ(OutcomeName(Outcome::kFailed), "failed");
  EXPECT_EQ(OutcomeName(Outcome::kAnswered), "answered");
}

}  // namespace
}  // namespace volent::egress
