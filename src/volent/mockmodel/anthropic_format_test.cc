#include "volent/mockmodel/anthropic_format.h"

#include <gtest/gtest.h>

#include "volent/mockmodel/plan.h"

namespace volent::mockmodel {
namespace {

using json = nlohmann::json;

json Tool(const std::string& name) {
  return {{"name", name}, {"description", "does " + name}, {"input_schema", {{"type", "object"}}}};
}

// A conversation two answers in: lookup called and answered, refund called
// and answered.
json TwoToolsAnswered() {
  return json::parse(R"({
    "model": "claude-mock",
    "max_tokens": 1024,
    "system": [{"type": "text", "text": "You are a refund agent."}],
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "{\"order\": 42}"}]},
      {"role": "assistant", "content": [
        {"type": "text", "text": "Looking it up."},
        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": 42}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "found"}]},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "refund", "input": {}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2",
                                    "content": [{"type": "text", "text": "refunded"}], "is_error": false}]}
    ],
    "tools": [
      {"name": "lookup", "description": "finds an order", "input_schema": {"type": "object"}},
      {"name": "refund", "input_schema": {"type": "object", "properties": {}}},
      {"name": "notify", "description": "tells the customer", "input_schema": {"type": "object"}}
    ],
    "temperature": 0
  })");
}

TEST(AnthropicRequest, ReadsAWholeToolConversation) {
  std::string body = TwoToolsAnswered().dump();
  auto c = ParseAnthropicRequest(body);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->model, "claude-mock");
  EXPECT_EQ(c->tools, (std::vector<std::string>{"lookup", "refund", "notify"}));
  EXPECT_EQ(c->first_user_text, "{\"order\": 42}");
  EXPECT_EQ(c->tool_results, 2u);
  EXPECT_EQ(c->assistant_turns, 2u);
  EXPECT_EQ(c->input_bytes, body.size());
  Answer next = DefaultPlan(*c);
  ASSERT_EQ(next.tool_calls.size(), 1u);
  EXPECT_EQ(next.tool_calls[0].name, "notify");
  EXPECT_EQ(next.tool_calls[0].arguments, json::parse(R"({"order": 42})"));
}

TEST(AnthropicRequest, StringContentAndNoTools) {
  auto c = ParseAnthropicRequest(R"({"model": "m", "max_tokens": 5, "system": "be brief",
                                     "messages": [{"role": "user", "content": "hi"}]})");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_TRUE(c->tools.empty());
  EXPECT_EQ(c->first_user_text, "hi");
  EXPECT_EQ(DefaultPlan(*c).text, "done: 0 tool call(s)");
}

TEST(AnthropicRequest, TextBlocksOfTheFirstUserMessageJoinWithNewlines) {
  auto c = ParseAnthropicRequest(R"({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [
      {"type": "text", "text": "a"}, {"type": "image", "source": {}}, {"type": "text", "text": "b"}]}]})");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->first_user_text, "a\nb");
}

TEST(AnthropicRequest, RefusesWrongShapesNamingTheField) {
  struct Case {
    std::string body;
    const char* says;
  };
  json ok = TwoToolsAnswered();
  auto with = [&](const std::string& pointer, json value) {
    json j = ok;
    j[json::json_pointer(pointer)] = std::move(value);
    return j.dump();
  };
  auto without = [&](const std::string& pointer) {
    json j = ok;
    json::json_pointer p(pointer);
    j[p.parent_pointer()].erase(p.back());
    return j.dump();
  };
  json unanswered = ok;
  unanswered["messages"][2]["content"] = "no tool_result here";
  json stray = ok;
  stray["messages"][2]["content"][0]["tool_use_id"] = "toolu_9";
  json duplicate = ok;
  duplicate["tools"].push_back(Tool("lookup"));
  std::string deep = R"({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "x"}], "x": )" +
                     std::string(100, '[') + std::string(100, ']') + "}";
  for (const Case& c : {
           Case{"{", "not JSON: syntax error at byte"},
           Case{"[]", "must be a JSON object"},
           Case{without("/model"), "model: Field required"},
           Case{with("/model", 5), "model: Field required"},
           Case{without("/max_tokens"), "max_tokens: Field required"},
           Case{with("/max_tokens", 0), "max_tokens: must be an integer"},
           Case{with("/max_tokens", "10"), "max_tokens: must be an integer"},
           Case{with("/stream", true), "stream: streaming is not supported"},
           Case{with("/system", 5), "system: must be a string"},
           Case{with("/system/0/type", "image"), "system.0.type"},
           Case{without("/messages"), "messages: Field required"},
           Case{with("/messages", json::array()), "messages: must be a non-empty array"},
           Case{with("/messages/0/role", "system"), "messages.0.role: must be \"user\" or \"assistant\""},
           Case{without("/messages/0/content"), "messages.0.content: Field required"},
           Case{with("/messages/0/content", 7), "messages.0.content: must be a string or an array"},
           Case{with("/messages/0/content/0/type", "audio"), "messages.0.content.0.type: 'audio' is not a content block type"},
           Case{without("/messages/0/content/0/text"), "messages.0.content.0.text: Field required"},
           Case{without("/messages/1/content/1/id"), "messages.1.content.1.id: Field required"},
           Case{with("/messages/1/content/1/name", "a.b"), "messages.1.content.1.name: String should match pattern"},
           Case{with("/messages/1/content/1/input", "{}"), "messages.1.content.1.input: Field required (an object)"},
           Case{without("/messages/2/content/0/tool_use_id"), "messages.2.content.0.tool_use_id: Field required"},
           Case{with("/messages/2/content/0/content", 5), "messages.2.content.0.content: must be a string or an array"},
           Case{with("/messages/2/content/0/is_error", "no"), "messages.2.content.0.is_error: must be a boolean"},
           Case{with("/messages/0/role", "assistant"), "the first message must use the \"user\" role"},
           Case{with("/messages/2/role", "assistant"), "tool_result blocks are only allowed in user messages"},
           Case{unanswered.dump(), "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
           Case{stray.dump(), "messages.2: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9"},
           Case{with("/tools", json::object()), "tools: must be an array"},
           Case{without("/tools/0/name"), "tools.0.name: Field required"},
           Case{with("/tools/0/name", std::string(65, 'a')), "tools.0.name: String should match pattern"},
           Case{with("/tools/0/name", "has space"), "tools.0.name: String should match pattern"},
           Case{without("/tools/0/input_schema"), "tools.0.input_schema: Field required"},
           Case{with("/tools/0/input_schema/type", "array"), "tools.0.input_schema.type: Input should be 'object'"},
           Case{with("/tools/0/type", "web_search_20250305"), "tools.0.type: only custom tools"},
           Case{with("/tools/0/description", 1), "tools.0.description: must be a string"},
           Case{duplicate.dump(), "Tool names must be unique"},
           Case{deep, "nests arrays and objects deeper than 64 levels"},
       }) {
    auto parsed = ParseAnthropicRequest(c.body);
    ASSERT_FALSE(parsed.ok()) << c.body;
    EXPECT_NE(parsed.message().find(c.says), std::string::npos) << c.says << "\n  got: " << parsed.message();
  }
}

TEST(AnthropicAnswer, ToolUseHasTheApiShape) {
  auto c = ParseAnthropicRequest(R"({"model": "claude-mock", "max_tokens": 64,
      "messages": [{"role": "user", "content": "{\"id\": 7}"}], "tools": [)" + Tool("lookup").dump() + "]}");
  ASSERT_TRUE(c.ok()) << c.message();
  Answer answer = DefaultPlan(*c);
  json got = json::parse(RenderAnthropicAnswer(answer, *c, "msg_mock1"));
  Usage usage = EstimateUsage(*c, answer);
  json want = {
      {"id", "msg_mock1"},
      {"type", "message"},
      {"role", "assistant"},
      {"model", "claude-mock"},
      {"content", json::array({{{"type", "tool_use"},
                                {"id", ToolCallId("toolu_", *c, 0)},
                                {"name", "lookup"},
                                {"input", {{"id", 7}}}}})},
      {"stop_reason", "tool_use"},
      {"stop_sequence", nullptr},
      {"usage", {{"input_tokens", usage.input_tokens}, {"output_tokens", usage.output_tokens}}},
  };
  EXPECT_EQ(got, want) << got.dump(2);
  EXPECT_EQ(got["content"][0]["id"].get<std::string>().rfind("toolu_", 0), 0u);
}

TEST(AnthropicAnswer, FinalTextHasTheApiShape) {
  auto c = ParseAnthropicRequest(TwoToolsAnswered().dump());
  ASSERT_TRUE(c.ok());
  c->tools.pop_back();  // lookup and refund called: done
  json got = json::parse(RenderAnthropicAnswer(DefaultPlan(*c), *c, "msg_mock2"));
  EXPECT_EQ(got["content"], json::parse(R"j([{"type": "text", "text": "done: 2 tool call(s)"}])j"));
  EXPECT_EQ(got["stop_reason"], "end_turn");
  EXPECT_TRUE(got["stop_sequence"].is_null());
  EXPECT_GT(got["usage"]["input_tokens"].get<int>(), 100);
  EXPECT_EQ(got.size(), 8u);
}

TEST(AnthropicErrors, HaveTheApiShape) {
  json got = json::parse(RenderAnthropicError(ApiError{ErrorKind::kInvalidRequest, "max_tokens: Field required"}));
  EXPECT_EQ(got, json::parse(R"({"type": "error", "error": {"type": "invalid_request_error",
                                                            "message": "max_tokens: Field required"}})"));
  EXPECT_EQ(json::parse(RenderAnthropicError(ApiError{ErrorKind::kAuthentication, "x"}))["error"]["type"],
            "authentication_error");
  EXPECT_EQ(json::parse(RenderAnthropicError(ApiError{ErrorKind::kNotFound, "x"}))["error"]["type"], "not_found_error");
  EXPECT_EQ(json::parse(RenderAnthropicError(ApiError{ErrorKind::kTooLarge, "x"}))["error"]["type"], "request_too_large");
}

TEST(AnthropicHeaders, KeyThenVersion) {
  auto none = CheckAnthropicHeaders(std::nullopt, "2023-06-01", std::nullopt);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status(), 401);
  EXPECT_EQ(none->message, "x-api-key header is required");
  auto empty = CheckAnthropicHeaders(std::string(), "2023-06-01", std::nullopt);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status(), 401);
  auto wrong = CheckAnthropicHeaders(std::string("sk-other"), "2023-06-01", std::string("sk-right"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status(), 401);
  EXPECT_EQ(wrong->message, "invalid x-api-key");
  EXPECT_FALSE(CheckAnthropicHeaders(std::string("sk-right"), "2023-06-01", std::string("sk-right")));
  EXPECT_FALSE(CheckAnthropicHeaders(std::string("anything"), "2023-06-01", std::nullopt));
  auto version = CheckAnthropicHeaders(std::string("anything"), std::nullopt, std::nullopt);
  ASSERT_TRUE(version);
  EXPECT_EQ(version->status(), 400);
  EXPECT_NE(version->message.find("anthropic-version"), std::string::npos);
  // The key is checked before the version, as the service does.
  EXPECT_EQ(CheckAnthropicHeaders(std::nullopt, std::nullopt, std::nullopt)->status(), 401);
}

}  // namespace
}  // namespace volent::mockmodel
