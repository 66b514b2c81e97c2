// The connection skeleton (server.h) on loopback sockets, with a handler
// that holds its answers until the test lets them go: keep-alive, the
// framing check, refusals, streams, and the graceful stop (idle connections
// close at once; a request in flight, being answered or still arriving, is
// answered with Connection: close). The three servers built on it have
// their own tests of the same stop (control_server_test,
// http_server_test, mock_server_test).
#include "core/http/server.h"

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/http/loopback_client.h"

namespace core::httpd {
namespace {

namespace http = boost::beast::http;

using Client = testing::LoopbackClient;

std::string Get(const std::string& path) { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"; }

// Answers /now at once with the request's body; holds the Reply of any
// other path until Release (or streams it, for /stream).
class HoldingHandler : public Handler {
 public:
  void Handle(Request request, Reply reply) override {
    std::string target(request.target());
    if (target == "/now") {
      Response response(http::status::ok, request.version());
      response.keep_alive(request.keep_alive());
      response.body() = "now:" + request.body();
      response.prepare_payload();
      return reply.Send(std::move(response));
    }
    if (target == "/stream") {
      StreamHead head(http::status::ok, request.version());
      head.set(http::field::content_type, "text/event-stream");
      reply.StartStream(std::move(head), std::chrono::milliseconds(5), ": beat\n\n");
    }
    std::lock_guard lock(mu_);
    held_.push_back({std::move(request), std::move(reply)});
    cv_.notify_all();
  }

  Response Refuse(const Refusal& refusal) override {
    Response response(static_cast<http::status>(refusal.status), 11);
    response.body() = "refused: " + refusal.reason;
    response.prepare_payload();
    return response;
  }

  void AwaitHeld(size_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return held_.size() >= n; });
  }

  // Answers every held request, from this (a foreign) thread.
  void Release() {
    std::lock_guard lock(mu_);
    for (auto& [request, reply] : held_) {
      if (request.target() == "/stream") {
        reply.EndStream("data: done\n\n");
        continue;
      }
      Response response(http::status::ok, request.version());
      response.keep_alive(request.keep_alive());
      response.body() = "held";
      response.prepare_payload();
      reply.Send(std::move(response));
    }
    held_.clear();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<Request, Reply>> held_;
};

class SkeletonTest : public ::testing::Test {
 protected:
  void Start(ServerOptions options = {}) {
    options.port = 0;
    auto server = Server::Bind(handler_, options);
    ASSERT_TRUE(server.ok()) << server.message();
    server_ = std::move(*server);
    port_ = server_->port();
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    handler_.Release();
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }

  HoldingHandler handler_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(SkeletonTest, KeepAliveThenAnAnswerFromAnotherThread) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send(Get("/now")));
  ASSERT_TRUE(c.ReadUntil("now:"));
  c.Forget();
  ASSERT_TRUE(c.Send(Get("/held")));
  handler_.AwaitHeld(1);
  handler_.Release();
  ASSERT_TRUE(c.ReadUntil("held")) << c.seen();
  EXPECT_EQ(c.seen().rfind("HTTP/1.1 200", 0), 0u) << c.seen();
}

TEST_F(SkeletonTest, AFramingErrorIs400WithConnectionCloseAndNothingAfterItRuns) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send("POST /now HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n" +
                     Get("/held")));
  std::string reply = c.ReadAll();
  EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply;
  EXPECT_NE(reply.find("Connection: close\r\n"), std::string::npos) << reply;
  EXPECT_NE(reply.find("refused: "), std::string::npos) << reply;
  EXPECT_EQ(reply.find("HTTP/1.1", 1), std::string::npos) << reply;  // one answer only
}

TEST_F(SkeletonTest, RefusalsOfSizeAreAnsweredAndClosed) {
  ServerOptions options;
  options.header_limit = 1024;
  options.body_limit = 16;
  Start(options);
  {
    Client c(port_);
    ASSERT_TRUE(c.Send("POST /now HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n" + std::string(17, 'a')));
    std::string reply = c.ReadAll();
    EXPECT_EQ(reply.rfind("HTTP/1.1 413", 0), 0u) << reply;
  }
  {
    Client c(port_);
    ASSERT_TRUE(c.Send("GET /now HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n"));
    std::string reply = c.ReadAll();
    EXPECT_EQ(reply.rfind("HTTP/1.1 431", 0), 0u) << reply;
  }
}

TEST_F(SkeletonTest, AStreamCarriesHeartbeatsThenItsLastChunk) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send(Get("/stream")));
  handler_.AwaitHeld(1);
  ASSERT_TRUE(c.ReadUntil("\r\n: beat\n\n\r\n")) << c.seen();
  EXPECT_NE(c.seen().find("Transfer-Encoding: chunked\r\n"), std::string::npos) << c.seen();
  handler_.Release();
  ASSERT_TRUE(c.ReadUntil("data: done\n\n\r\n0\r\n\r\n")) << c.seen();
  c.Forget();
  ASSERT_TRUE(c.Send(Get("/now")));  // kept alive
  EXPECT_TRUE(c.ReadUntil("now:"));
}

// The stop every server has: idle connections close at once, requests in
// flight are answered (with Connection: close), then Run returns.
TEST_F(SkeletonTest, StopAnswersRequestsInFlightAndClosesIdleConnections) {
  Start();
  Client idle(port_);
  ASSERT_TRUE(idle.Send(Get("/now")));
  ASSERT_TRUE(idle.ReadUntil("now:"));
  Client never(port_);  // connected, not a byte sent
  Client held(port_);
  ASSERT_TRUE(held.Send(Get("/held")));
  Client stream(port_);
  ASSERT_TRUE(stream.Send(Get("/stream")));
  handler_.AwaitHeld(2);
  // A request whose body is still to come; the interim answer says the
  // server has its header.
  Client arriving(port_);
  ASSERT_TRUE(arriving.Send("POST /now HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"));
  ASSERT_TRUE(arriving.ReadUntil("HTTP/1.1 100 Continue\r\n\r\n"));
  ASSERT_TRUE(stream.ReadUntil("\r\n\r\n"));  // the stream's head is out: it is under way

  server_->Stop();
  EXPECT_EQ(idle.ReadAll(), "");   // closed with nothing more said
  EXPECT_EQ(never.ReadAll(), "");

  // What was in flight is answered once it can be.
  ASSERT_TRUE(arriving.Send("abcd"));
  std::string body = arriving.ReadAll();
  EXPECT_EQ(body.rfind("HTTP/1.1 200", 0), 0u) << body;
  EXPECT_NE(body.find("Connection: close\r\n"), std::string::npos) << body;
  EXPECT_NE(body.find("now:abcd"), std::string::npos) << body;
  handler_.Release();
  std::string answer = held.ReadAll();
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << answer;
  EXPECT_NE(answer.find("held"), std::string::npos) << answer;
  std::string rest = stream.ReadAll();
  EXPECT_NE(rest.find("data: done\n\n\r\n0\r\n\r\n"), std::string::npos) << rest;

  thread_.join();  // Run returns once the last one has gone
  Client late(port_);
  EXPECT_FALSE(late.connected() && late.Send(Get("/now")) && !late.ReadAll().empty());
}

TEST_F(SkeletonTest, StopBeforeRunReturnsAtOnce) {
  auto server = Server::Bind(handler_, ServerOptions{});
  ASSERT_TRUE(server.ok()) << server.message();
  (*server)->Stop();
  (*server)->Run();
}

// A HEAD answer is its head: the handler's Content-Length, no body bytes,
// so the next answer on the kept-alive connection is read in step. A
// refusal of a HEAD likewise.
TEST_F(SkeletonTest, AHeadAnswerHasNoBodyAndTheNextAnswerIsInStep) {
  Start();
  std::string head;
  std::string rest = testing::AfterHeadAnswer(port_, "HEAD /now HTTP/1.1\r\nHost: x\r\n\r\n",
                                              "GET /now HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &head);
  EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u) << head;
  EXPECT_NE(head.find("Content-Length: 4\r\n"), std::string::npos) << head;  // "now:", the body a GET gets
  EXPECT_EQ(rest.rfind("HTTP/1.1 200", 0), 0u) << rest;
  EXPECT_EQ(rest.substr(rest.find("\r\n\r\n") + 4), "now:");

  Client refused(port_);
  ASSERT_TRUE(refused.Send("HEAD /now HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n"));
  std::string answer = refused.ReadAll();
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
  EXPECT_EQ(answer.size(), answer.find("\r\n\r\n") + 4) << answer;
}

// A client that connects and sends nothing, or half a header, is closed
// after header_timeout; one that sends its header in time has the whole
// read_timeout for its body.
TEST_F(SkeletonTest, AHeaderMustArriveWithinTheHeaderTimeout) {
  ServerOptions options;
  options.header_timeout = std::chrono::milliseconds(300);
  options.read_timeout = std::chrono::milliseconds(20000);
  Start(options);
  Client silent(port_), trickling(port_), slow_body(port_);
  ASSERT_TRUE(trickling.Send("GET /now HTTP/1.1\r\nHo"));
  ASSERT_TRUE(slow_body.Send("POST /now HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"));
  EXPECT_TRUE(silent.ClosedWithin(std::chrono::milliseconds(5000)));
  EXPECT_TRUE(trickling.ClosedWithin(std::chrono::milliseconds(5000)));
  // Well past the header timeout, the body is still awaited.
  ASSERT_TRUE(slow_body.Send("ok"));
  std::string answer = slow_body.ReadResponse();
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  EXPECT_NE(answer.find("now:ok"), std::string::npos) << answer;
}

// More idle sockets than the cap per address and than the cap overall,
// from one address (as every host client is behind the sealed image's port
// forward): a real request still gets in, because the idle ones that never
// sent a request are closed first to make room.
TEST_F(SkeletonTest, IdleSocketsBeyondTheCapsDoNotKeepARequestOut) {
  ServerOptions options;
  options.max_connections = 8;
  options.max_connections_per_source = 4;
  Start(options);
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 20; ++i) {
    idle.push_back(std::make_unique<Client>(port_));
    if (i % 2) idle.back()->Send("GET /now HTTP/1.1\r\nHo");  // half a header
  }
  for (int round = 0; round < 3; ++round) {
    Client c(port_);
    ASSERT_TRUE(c.Send(Get("/now")));
    EXPECT_EQ(c.ReadResponse().rfind("HTTP/1.1 200", 0), 0u) << round;
  }
  size_t closed = 0;
  for (auto& c : idle) closed += c->ClosedWithin(std::chrono::milliseconds(100));
  EXPECT_GE(closed, 16u);
  // Another address, at the overall cap: room is made for it too.
  for (std::string source : {"127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}) {
    for (int i = 0; i < 2; ++i) idle.push_back(std::make_unique<Client>(port_, source.c_str()));
  }
  Client other(port_, "127.0.0.2");
  ASSERT_TRUE(other.Send(Get("/now")));
  EXPECT_EQ(other.ReadResponse().rfind("HTTP/1.1 200", 0), 0u);
}

// A request being answered is never closed to make room: when every
// connection of an address is busy, its next one is closed on arrival,
// while another address still gets in and the busy ones are answered.
TEST_F(SkeletonTest, ABusyConnectionIsNeverClosedToMakeRoom) {
  ServerOptions options;
  options.max_connections = 8;
  options.max_connections_per_source = 2;
  Start(options);
  Client a(port_), b(port_);
  ASSERT_TRUE(a.Send(Get("/held")));
  ASSERT_TRUE(b.Send(Get("/held")));
  handler_.AwaitHeld(2);
  Client extra(port_);
  extra.Send(Get("/now"));
  EXPECT_EQ(extra.ReadAll(), "");
  Client other(port_, "127.0.0.2");
  ASSERT_TRUE(other.Send(Get("/now")));
  EXPECT_EQ(other.ReadResponse().rfind("HTTP/1.1 200", 0), 0u);
  handler_.Release();
  EXPECT_NE(a.ReadResponse().find("held"), std::string::npos);
  EXPECT_NE(b.ReadResponse().find("held"), std::string::npos);
}

TEST_F(SkeletonTest, BindErrorsNameTheSetting) {
  ServerOptions options;
  options.host = "not an address";
  options.error_prefix = "--listen: ";
  auto server = Server::Bind(handler_, options);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.message().rfind("--listen: 'not an address' is not an IP address", 0), 0u) << server.message();
}

}  // namespace
}  // namespace core::httpd
