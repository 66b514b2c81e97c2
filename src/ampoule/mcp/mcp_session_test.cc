// The MCP session on its own (no kernel): the JSON-RPC envelope, the
// lifecycle, every error code, tools/list and tools/call with tools made
// for the test, and the schemas of the real tools.
#include <gtest/gtest.h>

#include "ampoule/mcp/json_schema.h"
#include "ampoule/mcp/server_impl.h"
#include "ampoule/mcp/tools.h"

namespace ampoule::mcp {
namespace {

using nlohmann::json;

Tool EchoTool() {
  return {"echo", "Echo", "Returns its text.",
          {{"type", "object"},
           {"properties", {{"text", {{"type", "string"}}}, {"times", {{"type", "integer"}, {"minimum", 1}}}}},
           {"required", {"text"}},
           {"additionalProperties", false}},
          {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}, {"required", {"text"}}},
          [](const json& a) {
            if (a["text"] == "fail") return ToolResult::Fail("asked to fail");
            if (a["text"] == "throw") throw std::runtime_error("boom");
            return ToolResult::Ok({{"text", a["text"]}});
          }};
}

json Request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

json InitParams(const std::string& version = "2025-11-25") {
  return {{"protocolVersion", version},
          {"capabilities", json::object()},
          {"clientInfo", {{"name", "test"}, {"version", "1"}}}};
}

class SessionTest : public ::testing::Test {
 protected:
  std::shared_ptr<Server> server_ = NewServerWithTools({EchoTool()});
  std::unique_ptr<Session> session_ = server_->NewSession();

  json Call(const json& message) {
    std::optional<json> r = session_->Handle(message);
    EXPECT_TRUE(r.has_value()) << message.dump();
    return r.value_or(json());
  }
  json Text(std::string_view text) {
    std::optional<json> r = session_->HandleText(text);
    EXPECT_TRUE(r.has_value()) << text;
    return r.value_or(json());
  }
  void Initialize() {
    json r = Call(Request(1, "initialize", InitParams()));
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_FALSE(session_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).has_value());
  }
  static int Code(const json& r) { return r.contains("error") ? r["error"]["code"].get<int>() : 0; }
};

TEST_F(SessionTest, InitializeAnswersWithTheRevisionCapabilitiesAndServerInfo) {
  json r = Call(Request(7, "initialize", InitParams()));
  EXPECT_EQ(r["jsonrpc"], "2.0");
  EXPECT_EQ(r["id"], 7);
  const json& res = r["result"];
  EXPECT_EQ(res["protocolVersion"], "2025-11-25");
  EXPECT_EQ(res["capabilities"], json({{"tools", {{"listChanged", false}}}}));
  EXPECT_EQ(res["serverInfo"]["name"], "ampoule");
  EXPECT_TRUE(res["serverInfo"]["version"].is_string());
  EXPECT_EQ(session_->protocol_version(), "2025-11-25");
}

TEST_F(SessionTest, AnOlderKnownRevisionIsKeptAndAnUnknownOneGetsTheNewest) {
  json r = Call(Request(1, "initialize", InitParams("2025-06-18")));
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  auto other = server_->NewSession();
  json r2 = *other->Handle(Request(1, "initialize", InitParams("1999-01-01")));
  EXPECT_EQ(r2["result"]["protocolVersion"], kProtocolVersions.front());
}

TEST_F(SessionTest, InitializeWithoutAProtocolVersionIsInvalidParams) {
  EXPECT_EQ(Code(Call(Request(1, "initialize", json::object()))), kInvalidParams);
  EXPECT_EQ(Code(Call(Request(1, "initialize", {{"protocolVersion", 5}}))), kInvalidParams);
  EXPECT_EQ(session_->protocol_version(), "");
}

TEST_F(SessionTest, ASecondInitializeIsRefused) {
  Initialize();
  EXPECT_EQ(Code(Call(Request(2, "initialize", InitParams()))), kInvalidRequest);
}

TEST_F(SessionTest, RequestsBeforeInitializeAreRefusedButPingIsAnswered) {
  EXPECT_EQ(Code(Call(Request(1, "tools/list"))), kInvalidRequest);
  EXPECT_EQ(Code(Call(Request(2, "tools/call", {{"name", "echo"}}))), kInvalidRequest);
  json ping = Call(Request(3, "ping"));
  EXPECT_EQ(ping["result"], json::object());
  EXPECT_EQ(ping["id"], 3);
}

TEST_F(SessionTest, PingAfterInitialize) {
  Initialize();
  EXPECT_EQ(Call({{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}})["result"], json::object());
}

TEST_F(SessionTest, UnknownMethodIsMethodNotFound) {
  Initialize();
  json r = Call(Request(4, "resources/list"));
  EXPECT_EQ(Code(r), kMethodNotFound);
  EXPECT_EQ(r["id"], 4);
}

TEST_F(SessionTest, MalformedJsonIsAParseErrorWithIdNull) {
  for (std::string_view text : {"{", "not json", "{\"jsonrpc\":\"2.0\",}", "\xff\xfe"}) {
    json r = Text(text);
    EXPECT_EQ(Code(r), kParseError) << text;
    EXPECT_TRUE(r["id"].is_null());
  }
}

TEST_F(SessionTest, DeepNestingIsRefusedBeforeParsing) {
  std::string deep = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":" +
                     std::string(100000, '[') + std::string(100000, ']') + "}}";
  EXPECT_EQ(Code(Text(deep)), kParseError);
}

TEST_F(SessionTest, InvalidRequestsAreRefused) {
  Initialize();
  // Not an object, no jsonrpc, a wrong jsonrpc, a bad id, a bad method, bad params.
  EXPECT_EQ(Code(Text("5")), kInvalidRequest);
  EXPECT_EQ(Code(Text("\"x\"")), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"id", 1}, {"method", "ping"}})), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}})), kInvalidRequest);
  json null_id = Call({{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}});
  EXPECT_EQ(Code(null_id), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "ping"}})), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"jsonrpc", "2.0"}, {"id", {1}}, {"method", "ping"}})), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", 5}})), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"jsonrpc", "2.0"}, {"id", 1}})), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}, {"params", 3}})), kInvalidRequest);
  EXPECT_EQ(Code(Call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}, {"params", {1, 2}}})), kInvalidParams);
}

TEST_F(SessionTest, BatchesAreRefused) {
  Initialize();
  json r = Text("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
  EXPECT_EQ(Code(r), kInvalidRequest);
  EXPECT_TRUE(r["id"].is_null());
}

TEST_F(SessionTest, NotificationsAndResponsesGetNoAnswer) {
  EXPECT_FALSE(session_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}}).has_value());
  EXPECT_FALSE(session_->Handle({{"jsonrpc", "2.0"}, {"method", "ping"}}).has_value());
  EXPECT_FALSE(session_->Handle({{"jsonrpc", "2.0"}, {"id", 9}, {"result", json::object()}}).has_value());
  EXPECT_FALSE(
      session_->Handle({{"jsonrpc", "2.0"}, {"id", 9}, {"error", {{"code", 1}, {"message", "x"}}}}).has_value());
  EXPECT_FALSE(session_
                   ->Handle({{"jsonrpc", "2.0"},
                             {"method", "notifications/cancelled"},
                             {"params", {{"requestId", 3}}}})
                   .has_value());
}

TEST_F(SessionTest, ToolsListGivesEachToolWithItsSchemas) {
  Initialize();
  json r = Call(Request(2, "tools/list"));
  ASSERT_EQ(r["result"]["tools"].size(), 1u);
  const json& t = r["result"]["tools"][0];
  EXPECT_EQ(t["name"], "echo");
  EXPECT_EQ(t["inputSchema"]["type"], "object");
  EXPECT_EQ(t["outputSchema"]["type"], "object");
  EXPECT_FALSE(r["result"].contains("nextCursor"));
  EXPECT_EQ(Code(Call(Request(3, "tools/list", {{"cursor", "x"}}))), kInvalidParams);
}

TEST_F(SessionTest, ToolsCallReturnsStructuredContentAndTheSameAsText) {
  Initialize();
  json r = Call(Request(3, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}));
  const json& res = r["result"];
  EXPECT_EQ(res["isError"], false);
  EXPECT_EQ(res["structuredContent"], json({{"text", "hi"}}));
  ASSERT_EQ(res["content"].size(), 1u);
  EXPECT_EQ(res["content"][0]["type"], "text");
  EXPECT_EQ(json::parse(res["content"][0]["text"].get<std::string>()), res["structuredContent"]);
}

TEST_F(SessionTest, AToolFailureIsAResultWithIsError) {
  Initialize();
  json r = Call(Request(3, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "fail"}}}}));
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["content"][0]["text"], "asked to fail");
  EXPECT_FALSE(r["result"].contains("structuredContent"));
  json thrown = Call(Request(4, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "throw"}}}}));
  EXPECT_EQ(thrown["result"]["isError"], true);
}

TEST_F(SessionTest, ArgumentsAgainstTheInputSchemaAreAToolErrorTheModelCanFix) {
  Initialize();
  for (json args : {json::object(), json({{"text", 5}}), json({{"text", "a"}, {"extra", 1}}),
                    json({{"text", "a"}, {"times", 0}}), json({{"text", "a"}, {"times", 1.5}})}) {
    json r = Call(Request(3, "tools/call", {{"name", "echo"}, {"arguments", args}}));
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_EQ(r["result"]["isError"], true) << args.dump();
    EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("invalid arguments"), std::string::npos);
  }
}

TEST_F(SessionTest, MalformedToolsCallParamsAreInvalidParams) {
  Initialize();
  EXPECT_EQ(Code(Call(Request(3, "tools/call", json::object()))), kInvalidParams);
  EXPECT_EQ(Code(Call(Request(3, "tools/call", {{"name", 5}}))), kInvalidParams);
  EXPECT_EQ(Code(Call(Request(3, "tools/call", {{"name", "echo"}, {"arguments", "x"}}))), kInvalidParams);
  json unknown = Call(Request(3, "tools/call", {{"name", "nope"}, {"arguments", json::object()}}));
  EXPECT_EQ(Code(unknown), kInvalidParams);
  EXPECT_NE(unknown["error"]["message"].get<std::string>().find("nope"), std::string::npos);
}

TEST_F(SessionTest, InvalidUtf8InAResultIsReplacedWhenSerialised) {
  std::string text = SerializeMessage(json{{"s", std::string("a\xff")}});
  EXPECT_TRUE(json::accept(text));
}

// The real tools' listings, built without a kernel (their functions are
// never called here).
TEST(ToolSchemas, EveryToolHasObjectSchemasThatCheckTheirOwnExamples) {
  auto context = std::make_shared<ToolContext>(ToolContext{"/nonexistent", core::ed25519::SecretKey::Generate(), {}, "", ""});
  std::vector<Tool> tools = AllTools(context);
  std::vector<std::string> names;
  for (const Tool& t : tools) {
    names.push_back(t.name);
    json listed = ToolToJson(t);
    EXPECT_EQ(listed["inputSchema"]["type"], "object") << t.name;
    EXPECT_EQ(listed["outputSchema"]["type"], "object") << t.name;
    EXPECT_TRUE(listed["inputSchema"]["properties"].is_object()) << t.name;
    EXPECT_FALSE(t.description.empty());
    for (const json& r : listed["inputSchema"]["required"]) {
      EXPECT_TRUE(listed["inputSchema"]["properties"].contains(r.get<std::string>())) << t.name;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"run_python", "run_javascript", "run_wasm", "verify_receipt",
                                             "gate_submit"}));
  EXPECT_TRUE(CheckAgainstSchema(tools[0].input_schema, {{"code", "print(1)"}, {"seed", 3}, {"fuel", 10}}).ok());
  EXPECT_FALSE(CheckAgainstSchema(tools[0].input_schema, {{"code", "x"}, {"seed", -1}}).ok());
  EXPECT_FALSE(CheckAgainstSchema(tools[0].input_schema, {{"code", "x"}, {"timeout_seconds", 0}}).ok());
  EXPECT_FALSE(CheckAgainstSchema(tools[0].input_schema, {{"code", "x"}, {"inputs", {{"a", 1}}}}).ok());
  EXPECT_TRUE(CheckAgainstSchema(tools[3].input_schema, {{"receipt", "text"}}).ok());
  EXPECT_TRUE(CheckAgainstSchema(tools[3].input_schema, {{"receipt", json::object()}}).ok());
  EXPECT_FALSE(CheckAgainstSchema(tools[3].input_schema, {{"receipt", 5}}).ok());
}

TEST(ToolSchemas, GateSubmitWithoutAPolicySaysHowToConfigureIt) {
  auto context = std::make_shared<ToolContext>(ToolContext{"/nonexistent", core::ed25519::SecretKey::Generate(), {}, "", ""});
  Tool gate = GateSubmitTool(context);
  ToolResult r = gate.call({{"draft", json::object()}, {"receipt", "{}"}, {"code", ""}, {"output", ""}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.message.find("--policy"), std::string::npos);
}

TEST(JsonSchema, ErrorsNameThePlace) {
  json schema = {{"type", "object"},
                 {"properties", {{"m", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}};
  core::Status s = CheckAgainstSchema(schema, {{"m", {{"a/b", 1}}}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/m/a~1b"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace ampoule::mcp
