// The rules of the MCP endpoint (http_handler.h), request by request,
// against a stand-in server core.
#include "ampoule/mcp/http_handler.h"

#include <gtest/gtest.h>

#include "ampoule/mcp/http_test_fakes.h"

namespace ampoule::mcp {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;

constexpr int kPort = 4711;
constexpr const char* kAccept = "application/json, text/event-stream";

class HandlerTest : public ::testing::Test {
 protected:
  HandlerTest() : sessions_(16) {
    config_.port = kPort;
    config_.loopback_only = true;
    config_.allowed_origins = {"https://app.example.com"};
  }

  HttpRequest Post(const std::string& body, const std::string& session = "") {
    HttpRequest req{http::verb::post, "/mcp", 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(kPort));
    req.set(http::field::accept, kAccept);
    req.set(http::field::content_type, "application/json");
    if (!session.empty()) req.set("Mcp-Session-Id", session);
    req.body() = body;
    req.prepare_payload();
    return req;
  }

  HttpResponse Send(const HttpRequest& req) { return HandleNow(req, server_, sessions_, config_); }

  std::string Initialize() {
    auto res = Send(Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"));
    EXPECT_EQ(res.result(), http::status::ok);
    return std::string(res["Mcp-Session-Id"]);
  }

  static json Body(const HttpResponse& res) { return json::parse(res.body()); }

  testing::FakeServer server_;
  HttpSessionTable sessions_;
  HttpHandlerConfig config_;
};

TEST_F(HandlerTest, InitializeOpensASessionWithARandomId) {
  auto res = Send(Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"));
  ASSERT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res[http::field::content_type], "application/json");
  EXPECT_EQ(Body(res)["result"]["protocolVersion"], "2025-11-25");
  std::string id(res["Mcp-Session-Id"]);
  ASSERT_EQ(id.size(), 32u);
  for (char c : id) EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(c))) << id;
  EXPECT_NE(Initialize(), id);
  EXPECT_EQ(sessions_.size(), 2u);
}

TEST_F(HandlerTest, FailedInitializeOpensNoSession) {
  auto res = Send(Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"fail":true}})"));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_TRUE(Body(res).contains("error"));
  EXPECT_EQ(res.count("Mcp-Session-Id"), 0u);
  EXPECT_EQ(sessions_.size(), 0u);
}

TEST_F(HandlerTest, RequestsNeedAKnownSession) {
  auto res = Send(Post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"));
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_EQ(Body(res)["id"], nullptr);
  res = Send(Post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_EQ(res.result(), http::status::bad_request);
  res = Send(Post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", "0123456789abcdef0123456789abcdef"));
  EXPECT_EQ(res.result(), http::status::not_found);

  std::string id = Initialize();
  res = Send(Post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", id));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(Body(res)["id"], 2);
}

TEST_F(HandlerTest, NotificationsAndResponsesGet202WithNoBody) {
  std::string id = Initialize();
  auto res = Send(Post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", id));
  EXPECT_EQ(res.result(), http::status::accepted);
  EXPECT_TRUE(res.body().empty());
  res = Send(Post(R"({"jsonrpc":"2.0","id":"s1","result":{}})", id));
  EXPECT_EQ(res.result(), http::status::accepted);
  EXPECT_TRUE(res.body().empty());
}

TEST_F(HandlerTest, ToolCallsAnswerAsOneServerSentEvent) {
  std::string id = Initialize();
  auto res = Send(Post(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}})", id));
  ASSERT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res[http::field::content_type], "text/event-stream");
  const std::string& body = res.body();
  ASSERT_EQ(body.rfind("event: message\ndata: ", 0), 0u) << body;
  ASSERT_EQ(body.substr(body.size() - 2), "\n\n");
  std::string data = body.substr(std::string("event: message\ndata: ").size());
  data.resize(data.size() - 2);
  EXPECT_EQ(data.find('\n'), std::string::npos);  // one data line
  json message = json::parse(data);
  EXPECT_EQ(message["id"], 7);
  EXPECT_EQ(message["result"]["echo"]["a"], 1);
}

TEST_F(HandlerTest, DeleteEndsTheSession) {
  std::string id = Initialize();
  HttpRequest del{http::verb::delete_, "/mcp", 11};
  del.set(http::field::host, "localhost:" + std::to_string(kPort));
  del.set("Mcp-Session-Id", id);
  EXPECT_EQ(Send(del).result(), http::status::no_content);
  EXPECT_EQ(Send(del).result(), http::status::not_found);
  EXPECT_EQ(Send(Post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", id)).result(), http::status::not_found);
  del.erase("Mcp-Session-Id");
  EXPECT_EQ(Send(del).result(), http::status::bad_request);
}

TEST_F(HandlerTest, AcceptMustListBothTypes) {
  for (const char* accept : {"application/json", "text/event-stream", "*/*", ""}) {
    auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})");
    req.set(http::field::accept, accept);
    EXPECT_EQ(Send(req).result(), http::status::not_acceptable) << accept;
  }
  auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})");
  req.set(http::field::accept, "text/event-stream;q=0.9 , Application/JSON");
  EXPECT_EQ(Send(req).result(), http::status::ok);
}

TEST_F(HandlerTest, ContentTypeMustBeJson) {
  auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})");
  req.set(http::field::content_type, "text/plain");
  EXPECT_EQ(Send(req).result(), http::status::unsupported_media_type);
  req.erase(http::field::content_type);
  EXPECT_EQ(Send(req).result(), http::status::unsupported_media_type);
  req.set(http::field::content_type, "application/json; charset=utf-8");
  EXPECT_EQ(Send(req).result(), http::status::ok);
}

TEST_F(HandlerTest, MalformedBodiesGetJsonRpcErrors) {
  std::string id = Initialize();
  auto res = Send(Post("{not json", id));
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_EQ(Body(res)["error"]["code"], -32700);
  EXPECT_EQ(Body(res)["id"], nullptr);

  res = Send(Post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}])", id));
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_EQ(Body(res)["error"]["code"], -32600);

  for (const char* body : {"42", R"({"id":1,"method":"ping"})", R"({"jsonrpc":"2.0","id":1})",
                           R"({"jsonrpc":"2.0","id":1,"method":5})", "\"\xff\""}) {
    res = Send(Post(body, id));
    EXPECT_EQ(res.result(), http::status::bad_request) << body;
  }
  res = Send(Post(std::string(1000, '[') + std::string(1000, ']'), id));
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_EQ(Body(res)["error"]["code"], -32700);
}

TEST_F(HandlerTest, ProtocolVersionHeaderMustBeSupported) {
  for (const char* bad : {"invalid-protocol-version", "2000-01-01", "2099-01-01"}) {
    auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    req.set("MCP-Protocol-Version", bad);
    EXPECT_EQ(Send(req).result(), http::status::bad_request) << bad;
  }
  std::string id = Initialize();
  for (const char* bad : {"invalid-protocol-version", "2000-01-01", "2099-01-01", "2024-11-05"}) {
    auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", id);
    req.set("MCP-Protocol-Version", bad);
    EXPECT_EQ(Send(req).result(), http::status::bad_request) << bad;
  }
  for (const std::string& good : kProtocolVersions) {
    auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", id);
    req.set("MCP-Protocol-Version", good);
    EXPECT_EQ(Send(req).result(), http::status::ok) << good;
  }
  // Absent: the client is taken to speak 2025-03-26, which is served.
  EXPECT_EQ(Send(Post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", id)).result(), http::status::ok);
}

TEST_F(HandlerTest, ForeignOriginsAreForbidden) {
  auto init = R"({"jsonrpc":"2.0","id":1,"method":"initialize"})";
  for (const char* origin : {"https://evil.example", "http://127.0.0.1:1", "null", "http://localhost"}) {
    auto req = Post(init);
    req.set(http::field::origin, origin);
    auto res = Send(req);
    EXPECT_EQ(res.result(), http::status::forbidden) << origin;
    EXPECT_EQ(Body(res)["id"], nullptr);
  }
  EXPECT_EQ(sessions_.size(), 0u);
  for (std::string origin : {"http://127.0.0.1:" + std::to_string(kPort), "http://localhost:" + std::to_string(kPort),
                             std::string("https://app.example.com")}) {
    auto req = Post(init);
    req.set(http::field::origin, origin);
    auto res = Send(req);
    EXPECT_EQ(res.result(), http::status::ok) << origin;
    EXPECT_EQ(res[http::field::access_control_allow_origin], origin);
    EXPECT_EQ(res[http::field::access_control_expose_headers], "Mcp-Session-Id");
  }
  HttpRequest preflight{http::verb::options, "/mcp", 11};
  preflight.set(http::field::host, "127.0.0.1:" + std::to_string(kPort));
  preflight.set(http::field::origin, "https://app.example.com");
  auto res = Send(preflight);
  EXPECT_EQ(res.result(), http::status::no_content);
  EXPECT_NE(std::string(res[http::field::access_control_allow_headers]).find("Mcp-Session-Id"), std::string::npos);
  preflight.set(http::field::origin, "https://evil.example");
  EXPECT_EQ(Send(preflight).result(), http::status::forbidden);
}

TEST_F(HandlerTest, LoopbackServersAnswerOnlyToLoopbackHostNames) {
  auto init = R"({"jsonrpc":"2.0","id":1,"method":"initialize"})";
  std::string port = std::to_string(kPort);
  for (std::string host : {std::string("evil.example.com"), "evil.example.com:" + port, std::string("127.0.0.1:1"),
                           std::string("localhost:"), std::string("[::1"), std::string("localhost:99999999999")}) {
    auto req = Post(init);
    req.set(http::field::host, host);
    EXPECT_EQ(Send(req).result(), http::status::forbidden) << host;
  }
  auto req = Post(init);
  req.erase(http::field::host);
  EXPECT_EQ(Send(req).result(), http::status::forbidden);
  for (std::string host : {std::string("localhost"), "LocalHost:" + port, "127.0.0.1:" + port, "[::1]:" + port,
                           std::string("[::1]")}) {
    auto req = Post(init);
    req.set(http::field::host, host);
    EXPECT_EQ(Send(req).result(), http::status::ok) << host;
  }
  config_.loopback_only = false;
  req = Post(init);
  req.set(http::field::host, "mcp.example.com");
  EXPECT_EQ(Send(req).result(), http::status::ok);
}

TEST_F(HandlerTest, OtherMethodsAndPaths) {
  for (http::verb verb : {http::verb::get, http::verb::put, http::verb::patch, http::verb::head}) {
    HttpRequest req{verb, "/mcp", 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(kPort));
    auto res = Send(req);
    EXPECT_EQ(res.result(), http::status::method_not_allowed);
    EXPECT_EQ(res[http::field::allow], "POST, DELETE, OPTIONS");
  }
  auto req = Post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})");
  req.target("/other");
  EXPECT_EQ(Send(req).result(), http::status::not_found);
  req.target("/mcp/");
  EXPECT_EQ(Send(req).result(), http::status::not_found);
  req.target("/mcp?x=1");
  EXPECT_EQ(Send(req).result(), http::status::ok);
}

TEST_F(HandlerTest, FailuresInsideTheCoreRevealNothing) {
  std::string id = Initialize();
  auto res = Send(Post(R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"throw"}})", id));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res.body().find("passwd"), std::string::npos);
  EXPECT_NE(res.body().find("-32603"), std::string::npos);
  EXPECT_NE(res.body().find("\"id\":9"), std::string::npos);

  res = Send(Post(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"silent"}})", id));
  EXPECT_NE(res.body().find("-32603"), std::string::npos);
  // The session still serves, and was released both times.
  EXPECT_EQ(Send(Post(R"({"jsonrpc":"2.0","id":11,"method":"ping"})", id)).result(), http::status::ok);
}

TEST_F(HandlerTest, RepeatedSessionHeadersAreRefused) {
  std::string id = Initialize();
  auto req = Post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", id);
  req.insert("Mcp-Session-Id", id);
  EXPECT_EQ(Send(req).result(), http::status::bad_request);
}

TEST(HttpSessionTableTest, FullTableEndsTheLongestIdleSession) {
  testing::FakeServer server;
  HttpSessionTable table(2);
  auto make = [&] {
    auto s = std::make_shared<HttpSession>();
    s->session = server.NewSession();
    return s;
  };
  auto a = make(), b = make(), c = make(), d = make();
  ASSERT_TRUE(table.Add(a));
  ASSERT_TRUE(table.Add(b));
  ASSERT_TRUE(table.Acquire(a->id));  // a is busy (and used last)
  ASSERT_TRUE(table.Add(c));          // b goes
  EXPECT_FALSE(table.Acquire(b->id));
  ASSERT_TRUE(table.Acquire(c->id));  // now both busy
  EXPECT_FALSE(table.Add(d));
  table.Release(a->id);
  ASSERT_TRUE(table.Add(d));  // a goes
  EXPECT_FALSE(table.Acquire(a->id));
  EXPECT_EQ(table.size(), 2u);
  EXPECT_TRUE(table.Remove(c->id));
  EXPECT_FALSE(table.Remove(c->id));
  table.Release(c->id);  // after removal: harmless
}

TEST(HttpSessionTableTest, IdsAreDistinctHex) {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    std::string id = HttpSessionTable::NewId();
    ASSERT_EQ(id.size(), 32u);
    ASSERT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 1000u);
}

}  // namespace
}  // namespace ampoule::mcp
