// The mock model's server on real loopback sockets against request
// smuggling (httpd/smuggling_suite.h): every case is refused and closed,
// and the counters show that the model call hidden in each never ran.
#include "volent/mockmodel/server.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/http/loopback_client.h"
#include "core/http/smuggling_suite.h"

namespace volent::mockmodel {
namespace {

using json = nlohmann::json;

class MockServerTest : public ::testing::Test {
 protected:
  void SetUp() override { StartWith({}); }
  void StartWith(std::chrono::milliseconds latency) {
    TearDown();
    ServiceOptions service_options;
    service_options.api_key = "sk-ant-test";
    service_options.latency = latency;
    service_ = std::make_unique<Service>(std::move(service_options));
    ServerOptions options;
    options.idle_timeout = std::chrono::milliseconds(2000);
    auto server = Server::Bind(*service_, options);
    ASSERT_TRUE(server.ok()) << server.message();
    server_ = std::move(*server);
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }

  static std::string ModelCall() {
    std::string body = R"({"model":"claude-mock","max_tokens":64,"messages":[{"role":"user","content":"hi"}]})";
    return "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "x-api-key: sk-ant-test\r\nanthropic-version: 2023-06-01\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  std::unique_ptr<Service> service_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

TEST_F(MockServerTest, SmugglingSuiteCountsNoSmuggledCall) {
  core::httpd::testing::SmugglingTarget target{"/v1/messages", ModelCall(),
                                                  "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"};
  auto cases = core::httpd::testing::SmugglingCases(target);
  int passed = 0;
  for (const auto& c : cases) {
    auto reply = core::httpd::testing::SendSmuggling(server_->port(), c.bytes);
    std::string wrong = core::httpd::testing::JudgeSmuggling(c, reply);
    EXPECT_EQ(wrong, "") << c.name << ": " << reply.bytes.substr(0, 300);
    if (wrong.empty()) ++passed;
  }
  EXPECT_EQ(passed, static_cast<int>(cases.size()));
  json stats = service_->Stats();
  EXPECT_EQ(stats["requests"], 0) << stats.dump();
  EXPECT_EQ(stats["by_api"]["anthropic"], 0) << stats.dump();
  EXPECT_EQ(stats["errors"], 0) << stats.dump();

  // The server serves on, and counts a real call.
  std::string call = ModelCall();
  call.insert(call.find("\r\n") + 2, "Connection: close\r\n");
  auto reply = core::httpd::testing::SendSmuggling(server_->port(), call);
  EXPECT_EQ(reply.bytes.rfind("HTTP/1.1 200", 0), 0u) << reply.bytes;
  EXPECT_EQ(service_->Stats()["requests"], 1);
}

// HEAD is answered with headers only: the next answer on the connection is
// read in step.
TEST_F(MockServerTest, AHeadAnswerHasNoBodySoTheNextAnswerIsInStep) {
  std::string head;
  std::string rest = core::httpd::testing::AfterHeadAnswer(
      server_->port(), "HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", &head);
  EXPECT_EQ(head.rfind("HTTP/1.1 405", 0), 0u) << head;
  EXPECT_EQ(rest.rfind("HTTP/1.1 200", 0), 0u) << rest;
}

TEST_F(MockServerTest, AFramingErrorIsAnsweredInTheApisFormat) {
  auto reply = core::httpd::testing::SendSmuggling(
      server_->port(), "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: identity\r\n"
                       "Content-Length: 0\r\n\r\n" + ModelCall());
  ASSERT_TRUE(reply.closed);
  EXPECT_EQ(reply.bytes.rfind("HTTP/1.1 400", 0), 0u) << reply.bytes;
  EXPECT_NE(reply.bytes.find("Connection: close\r\n"), std::string::npos) << reply.bytes;
  json body = json::parse(reply.bytes.substr(reply.bytes.find("\r\n\r\n") + 4));
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(service_->Stats()["requests"], 0);
}

// The stop every server shares (core/http/server.h): the idle connection
// closes at once, the answer being held still goes out, then the server
// closes that connection too.
TEST_F(MockServerTest, StopAnswersTheHeldCallAndClosesIdleConnections) {
  StartWith(std::chrono::milliseconds(1000));
  namespace net = boost::asio;
  namespace http = boost::beast::http;
  net::io_context ioc;
  net::ip::tcp::socket idle(ioc);
  idle.connect({net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_->port())});
  http::request<http::empty_body> health{http::verb::get, "/healthz", 11};
  health.set(http::field::host, "127.0.0.1");
  http::write(idle, health);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(idle, buffer, res);
  ASSERT_EQ(res.result_int(), 200);

  core::httpd::testing::SmugglingReply held;
  std::thread call([&] { held = core::httpd::testing::SendSmuggling(server_->port(), ModelCall()); });
  while (service_->Stats()["requests"] == 0) std::this_thread::yield();  // the call is held
  server_->Stop();
  char byte;
  boost::system::error_code ec;
  EXPECT_EQ(idle.read_some(net::buffer(&byte, 1), ec), 0u);
  EXPECT_TRUE(ec == net::error::eof || ec == net::error::connection_reset) << ec.message();
  call.join();
  EXPECT_EQ(held.bytes.rfind("HTTP/1.1 200", 0), 0u) << held.bytes;
  EXPECT_TRUE(held.closed);
  thread_.join();
  EXPECT_EQ(service_->Stats()["in_flight"], 0);
}

}  // namespace
}  // namespace volent::mockmodel
