// The HTTP transport over real loopback sockets (http_server.h), against a
// stand-in server core: keep-alive, the event stream of a tool call, calls
// running side by side, bad clients that must not stop the server, and
// request smuggling (httpd/smuggling_suite.h).
#include "ampoule/mcp/http_server.h"

#include <gtest/gtest.h>

#include <thread>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "ampoule/mcp/http_test_fakes.h"
#include "core/http/loopback_client.h"
#include "core/http/smuggling_suite.h"

namespace ampoule::mcp {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using nlohmann::json;
using Response = http::response<http::string_body>;

HttpLimits Heartbeat(int ms) {
  HttpLimits t;
  t.heartbeat = std::chrono::milliseconds(ms);
  return t;
}

class ServerTest : public ::testing::Test {
 protected:
  void Start(HttpOptions options = {}, HttpLimits limits = {}) {
    fake_ = std::make_shared<testing::FakeServer>(&gate_);
    auto bound = HttpServer::Bind(fake_, options, limits);
    ASSERT_TRUE(bound.ok()) << bound.message();
    server_ = std::move(*bound);
    port_ = server_->port();
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_->Run(/*handle_signals=*/false); });
  }
  void TearDown() override {
    gate_.Open();
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }

  tcp::socket Connect() {
    tcp::socket socket(ioc_);
    socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)));
    return socket;
  }

  http::request<http::string_body> Post(const std::string& body, const std::string& session = "") {
    http::request<http::string_body> req{http::verb::post, "/mcp", 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port_));
    req.set(http::field::accept, "application/json, text/event-stream");
    req.set(http::field::content_type, "application/json");
    if (!session.empty()) req.set("Mcp-Session-Id", session);
    req.body() = body;
    req.prepare_payload();
    return req;
  }

  Response Exchange(tcp::socket& socket, const http::request<http::string_body>& req) {
    http::write(socket, req);
    Response res;
    http::read(socket, buffer_, res);
    return res;
  }

  std::string Initialize(tcp::socket& socket) {
    auto res = Exchange(socket, Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"));
    EXPECT_EQ(res.result(), http::status::ok);
    return std::string(res["Mcp-Session-Id"]);
  }

  // Everything the server sends until it closes the connection.
  static std::string ReadToEnd(tcp::socket& socket) {
    std::string all;
    char buf[4096];
    for (;;) {
      boost::system::error_code ec;
      size_t n = socket.read_some(net::buffer(buf), ec);
      all.append(buf, n);
      if (ec) break;
    }
    return all;
  }

  testing::Gate gate_;
  std::shared_ptr<testing::FakeServer> fake_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  int port_ = 0;
  net::io_context ioc_;
  beast::flat_buffer buffer_;
};

TEST_F(ServerTest, ASessionOnOneKeptAliveConnection) {
  Start();
  auto socket = Connect();
  std::string id = Initialize(socket);
  ASSERT_EQ(id.size(), 32u);

  auto res = Exchange(socket, Post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", id));
  EXPECT_EQ(res.result(), http::status::accepted);
  EXPECT_TRUE(res.body().empty());

  res = Exchange(socket, Post(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{"n":3}}})", id));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res[http::field::content_type], "text/event-stream");
  EXPECT_TRUE(res.chunked());
  const std::string prefix = "event: message\ndata: ";
  ASSERT_EQ(res.body().rfind(prefix, 0), 0u) << res.body();
  json message = json::parse(res.body().substr(prefix.size()));
  EXPECT_EQ(message["id"], 2);
  EXPECT_EQ(message["result"]["echo"]["n"], 3);

  res = Exchange(socket, Post(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})", id));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(json::parse(res.body())["id"], 3);

  http::request<http::string_body> del{http::verb::delete_, "/mcp", 11};
  del.set(http::field::host, "localhost:" + std::to_string(port_));
  del.set("Mcp-Session-Id", id);
  EXPECT_EQ(Exchange(socket, del).result(), http::status::no_content);
  EXPECT_EQ(Exchange(socket, Post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})", id)).result(),
            http::status::not_found);
}

TEST_F(ServerTest, CallsRunSideBySideOffTheNetworkThread) {
  Start();
  auto first = Connect();
  std::string id = Initialize(first);
  constexpr int kCalls = 6;
  std::vector<tcp::socket> sockets;
  for (int i = 0; i < kCalls; ++i) {
    sockets.push_back(Connect());
    http::write(sockets.back(),
                Post(R"({"jsonrpc":"2.0","id":)" + std::to_string(100 + i) +
                         R"(,"method":"tools/call","params":{"name":"wait"}})",
                     id));
  }
  // All of them are running at once, in one session...
  ASSERT_TRUE(gate_.AwaitRunning(kCalls));
  // ...and the server still answers others meanwhile.
  EXPECT_EQ(Exchange(first, Post(R"({"jsonrpc":"2.0","id":5,"method":"ping"})", id)).result(), http::status::ok);
  gate_.Open();
  for (int i = 0; i < kCalls; ++i) {
    Response res;
    beast::flat_buffer buffer;
    http::read(sockets[i], buffer, res);
    EXPECT_EQ(res.result(), http::status::ok);
    EXPECT_NE(res.body().find("\"id\":" + std::to_string(100 + i)), std::string::npos) << res.body();
  }
}

TEST_F(ServerTest, ARunningCallsStreamCarriesHeartbeatsThenTheEvent) {
  Start({}, Heartbeat(5));
  auto socket = Connect();
  std::string id = Initialize(socket);
  http::write(socket, Post(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"wait"}})", id));
  // Headers and a heartbeat arrive while the call is still running.
  std::string seen;
  char buf[4096];
  while (seen.find(": keep-alive\n\n") == std::string::npos) {
    boost::system::error_code ec;
    size_t n = socket.read_some(net::buffer(buf), ec);
    ASSERT_FALSE(ec) << seen;
    seen.append(buf, n);
  }
  EXPECT_EQ(seen.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << seen;
  EXPECT_NE(seen.find("Content-Type: text/event-stream\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("event: message"), std::string::npos);
  gate_.Open();
  while (seen.find("\r\n0\r\n\r\n") == std::string::npos) {
    boost::system::error_code ec;
    size_t n = socket.read_some(net::buffer(buf), ec);
    ASSERT_FALSE(ec) << seen;
    seen.append(buf, n);
  }
  EXPECT_NE(seen.find("event: message\ndata: {"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"id\":8"), std::string::npos) << seen;
  // The connection is kept alive for the next request.
  beast::flat_buffer fresh;
  http::write(socket, Post(R"({"jsonrpc":"2.0","id":9,"method":"ping"})", id));
  Response res;
  http::read(socket, fresh, res);
  EXPECT_EQ(res.result(), http::status::ok);
}

TEST_F(ServerTest, AClientLeavingDuringACallHarmsNothing) {
  Start({}, Heartbeat(5));
  auto first = Connect();
  std::string id = Initialize(first);
  {
    auto socket = Connect();
    http::write(socket, Post(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"wait"}})", id));
    ASSERT_TRUE(gate_.AwaitRunning(1));
  }  // closed while the call runs
  gate_.Open();
  auto res = Exchange(first, Post(R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x"}})", id));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_NE(res.body().find("\"id\":9"), std::string::npos);
}

TEST_F(ServerTest, MalformedHttpIsAnsweredAndTheServerServesOn) {
  HttpOptions options;
  options.max_body_bytes = 1024;
  Start(options);
  {
    auto socket = Connect();
    net::write(socket, net::buffer(std::string("GARBAGE\x01\x02 / HTTP/9\r\n\r\n")));
    std::string reply = ReadToEnd(socket);
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply;
  }
  {
    auto socket = Connect();
    auto req = Post(std::string(2000, ' ') + "{}");
    http::write(socket, req);
    std::string reply = ReadToEnd(socket);
    EXPECT_EQ(reply.rfind("HTTP/1.1 413", 0), 0u) << reply;
  }
  {
    auto socket = Connect();
    std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n";
    net::write(socket, net::buffer(head));
    std::string reply = ReadToEnd(socket);
    EXPECT_EQ(reply.rfind("HTTP/1.1 431", 0), 0u) << reply;
  }
  {
    auto socket = Connect();  // connects and leaves at once
    socket.close();
  }
  {
    // A client that sends its request and half-closes still gets its answer.
    auto socket = Connect();
    http::write(socket, Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})"));
    socket.shutdown(tcp::socket::shutdown_send);
    std::string reply = ReadToEnd(socket);
    EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
    EXPECT_NE(reply.find("Mcp-Session-Id"), std::string::npos);
  }
  {
    // Expect: 100-continue gets its interim answer, then the real one.
    auto socket = Connect();
    auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})");
    req.set(http::field::expect, "100-continue");
    http::request_serializer<http::string_body> sr{req};
    http::write_header(socket, sr);
    char interim[25];
    net::read(socket, net::buffer(interim));
    EXPECT_EQ(std::string(interim, sizeof interim), "HTTP/1.1 100 Continue\r\n\r\n");
    net::write(socket, net::buffer(req.body()));
    Response res;
    http::read(socket, buffer_, res);
    EXPECT_EQ(res.result(), http::status::ok);
  }
  auto socket = Connect();
  EXPECT_FALSE(Initialize(socket).empty());
}

// The one smuggling suite, each case hiding a tools/call of a live session;
// afterwards no call ran, no session was added and the session still works.
TEST_F(ServerTest, SmugglingSuiteLeavesTheStateIntact) {
  Start();
  auto socket = Connect();
  std::string id = Initialize(socket);
  ASSERT_EQ(id.size(), 32u);
  auto post = [&](const std::string& body) {
    return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n"
           "Content-Type: application/json\r\nMcp-Session-Id: " + id + "\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  core::httpd::testing::SmugglingTarget target{
      "/mcp", post(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}})"),
      post(R"({"jsonrpc":"2.0","id":8,"method":"ping"})")};
  auto cases = core::httpd::testing::SmugglingCases(target);
  int passed = 0;
  for (const auto& c : cases) {
    auto reply = core::httpd::testing::SendSmuggling(port_, c.bytes);
    std::string wrong = core::httpd::testing::JudgeSmuggling(c, reply);
    EXPECT_EQ(wrong, "") << c.name << ": " << reply.bytes.substr(0, 300);
    if (wrong.empty()) ++passed;
  }
  EXPECT_EQ(passed, static_cast<int>(cases.size()));
  EXPECT_EQ(fake_->tool_calls, 0);
  EXPECT_EQ(fake_->sessions_made, 1);
  auto again = Connect();
  auto res = Exchange(again, Post(R"({"jsonrpc":"2.0","id":9,"method":"tools/list"})", id));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(fake_->tool_calls, 0);
}

TEST_F(ServerTest, SlowClientsAreDisconnected) {
  HttpLimits limits;
  limits.read = std::chrono::milliseconds(500);
  Start({}, limits);
  // Half a request line, then nothing: the server gives up and closes.
  auto slow = Connect();
  net::write(slow, net::buffer(std::string("POST /mcp HTTP/1.1\r\nHost: 127.")));
  std::string reply = ReadToEnd(slow);
  EXPECT_EQ(reply.find("HTTP/1.1 2"), std::string::npos) << reply;
  // An idle kept-alive connection likewise.
  auto idle = Connect();
  Initialize(idle);
  EXPECT_EQ(ReadToEnd(idle), "");
  auto socket = Connect();
  EXPECT_FALSE(Initialize(socket).empty());
}

// At the cap, the idle connection waiting longest (one that never sent a
// request first) is closed to make room; a connection whose request is
// being answered never is (the skeleton's ABusyConnectionIsNeverClosedToMakeRoom).
TEST_F(ServerTest, AtTheCapAnIdleConnectionMakesRoom) {
  HttpLimits limits;
  limits.max_connections = 8;
  Start({}, limits);
  std::vector<tcp::socket> held;
  for (int i = 0; i < limits.max_connections; ++i) held.push_back(Connect());
  // One round trip on the last one: by then every earlier one was accepted.
  EXPECT_FALSE(Initialize(held.back()).empty());
  auto extra = Connect();
  EXPECT_FALSE(Initialize(extra).empty());
  // The first one, idle longest, made room.
  EXPECT_EQ(ReadToEnd(held.front()), "");
}

// HEAD is answered with headers only: the next answer on the connection is
// read in step.
TEST_F(ServerTest, AHeadAnswerHasNoBodySoTheNextAnswerIsInStep) {
  Start();
  const std::string host = "Host: 127.0.0.1:" + std::to_string(port_) + "\r\n";
  std::string head;
  std::string rest = core::httpd::testing::AfterHeadAnswer(
      port_, "HEAD /mcp HTTP/1.1\r\n" + host + "\r\n", "GET /mcp HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n",
      &head);
  EXPECT_EQ(head.rfind("HTTP/1.1 405", 0), 0u) << head;
  EXPECT_EQ(rest.rfind("HTTP/1.1 405", 0), 0u) << rest;
}

TEST_F(ServerTest, ForeignHostAndOriginAreForbiddenOnTheWire) {
  Start();
  auto socket = Connect();
  auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})");
  req.set(http::field::host, "evil.example.com");
  EXPECT_EQ(Exchange(socket, req).result(), http::status::forbidden);
  req.set(http::field::host, "localhost:" + std::to_string(port_));
  req.set(http::field::origin, "https://evil.example.com");
  EXPECT_EQ(Exchange(socket, req).result(), http::status::forbidden);
  EXPECT_EQ(fake_->sessions_made, 0);
}

TEST_F(ServerTest, BindErrorsSayWhatToChange) {
  Start();
  HttpOptions taken;
  taken.port = port_;
  auto again = HttpServer::Bind(fake_, taken);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("cannot listen on 127.0.0.1:" + std::to_string(port_)), std::string::npos)
      << again.message();
  HttpOptions bad;
  bad.host = "not an address";
  auto wrong = HttpServer::Bind(fake_, bad);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("--http"), std::string::npos);
}

// The stop every server shares (core/http/server.h): the idle connection
// closes at once, the running call's stream ends with its answer.
TEST_F(ServerTest, StopAnswersTheCallInFlightAndClosesIdleConnections) {
  Start({}, Heartbeat(5));
  auto idle = Connect();
  std::string id = Initialize(idle);
  auto busy = Connect();
  http::write(busy, Post(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"wait"}})", id));
  ASSERT_TRUE(gate_.AwaitRunning(1));
  server_->Stop();
  EXPECT_EQ(ReadToEnd(idle), "");
  gate_.Open();
  std::string reply = ReadToEnd(busy);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
  EXPECT_NE(reply.find("event: message\ndata: {"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\"id\":8"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\r\n0\r\n\r\n"), std::string::npos) << reply;
  thread_.join();
}

}  // namespace
}  // namespace ampoule::mcp
