#include "volent/mockmodel/openai_format.h"

#include <gtest/gtest.h>

#include "volent/mockmodel/plan.h"

namespace volent::mockmodel {
namespace {

using json = nlohmann::json;

json Tool(const std::string& name) {
  return {{"type", "function"},
          {"function", {{"name", name}, {"description", "does " + name}, {"parameters", {{"type", "object"}}}}}};
}

json TwoToolsAnswered() {
  return json::parse(R"({
    "model": "gpt-mock",
    "messages": [
      {"role": "system", "content": "You are a refund agent."},
      {"role": "user", "content": [{"type": "text", "text": "{\"order\": 42}"}]},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"order\":42}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "found"},
      {"role": "assistant", "content": "Refunding.", "tool_calls": [
        {"id": "call_2", "type": "function", "function": {"name": "refund", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "refunded"}]}
    ],
    "tools": [
      {"type": "function", "function": {"name": "lookup", "description": "finds an order", "parameters": {"type": "object"}}},
      {"type": "function", "function": {"name": "refund"}},
      {"type": "function", "function": {"name": "notify", "parameters": {"type": "object", "properties": {}}}}
    ],
    "temperature": 0,
    "n": 1
  })");
}

TEST(OpenAiRequest, ReadsAWholeToolConversation) {
  std::string body = TwoToolsAnswered().dump();
  auto c = ParseOpenAiRequest(body);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->model, "gpt-mock");
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

TEST(OpenAiRequest, ParallelToolCallsAnsweredInAnyOrder) {
  auto c = ParseOpenAiRequest(R"({"model": "m", "messages": [
      {"role": "developer", "content": "rules"},
      {"role": "user", "content": "go"},
      {"role": "assistant", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
        {"id": "b", "type": "function", "function": {"name": "y", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "b", "content": "2"},
      {"role": "tool", "tool_call_id": "a", "content": "1"},
      {"role": "user", "content": "and?"}]})");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->tool_results, 2u);
  EXPECT_EQ(c->first_user_text, "go");
  EXPECT_EQ(DefaultPlan(*c).text, "done: 2 tool call(s)");
}

TEST(OpenAiRequest, RefusesWrongShapesNamingTheField) {
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
  unanswered["messages"].erase(3);
  json orphan = ok;
  orphan["messages"].erase(2);
  json twice = ok;
  twice["messages"].insert(twice["messages"].begin() + 4, json{{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "again"}});
  for (const Case& c : {
           Case{"{\"model\": ", "not JSON: syntax error at byte"},
           Case{"\"text\"", "must be a JSON object"},
           Case{without("/model"), "model: missing required parameter"},
           Case{with("/stream", true), "stream: streaming is not supported"},
           Case{with("/n", 2), "n: the mock model gives one choice"},
           Case{without("/messages"), "messages: missing required parameter"},
           Case{with("/messages", json::array()), "messages: must be a non-empty array"},
           Case{with("/messages/0/role", "function"), "messages[0].role: 'function' is not one of"},
           Case{without("/messages/0/role"), "messages[0].role: missing required parameter"},
           Case{without("/messages/1/content"), "messages[1].content: missing required parameter"},
           Case{with("/messages/1/content", 3), "messages[1].content: must be a string or an array"},
           Case{with("/messages/1/content/0/type", "video"), "messages[1].content[0].type: 'video' is not allowed"},
           Case{with("/messages/0/content", json::parse(R"([{"type": "image_url", "image_url": {}}])")),
                "messages[0].content[0].type: 'image_url' is not allowed"},
           Case{without("/messages/2/tool_calls"), "messages[2].content: an assistant message needs content or tool_calls"},
           Case{with("/messages/2/tool_calls", json::object()), "messages[2].tool_calls: must be an array"},
           Case{without("/messages/2/tool_calls/0/id"), "messages[2].tool_calls[0].id: missing required parameter"},
           Case{with("/messages/2/tool_calls/0/type", "code"), "messages[2].tool_calls[0].type: must be \"function\""},
           Case{without("/messages/2/tool_calls/0/function/name"), "messages[2].tool_calls[0].function.name"},
           Case{with("/messages/2/tool_calls/0/function/arguments", json::parse(R"({"order": 42})")),
                "messages[2].tool_calls[0].function.arguments: must be a string (the arguments as JSON text), not object"},
           Case{without("/messages/3/tool_call_id"), "messages[3].tool_call_id: missing required parameter"},
           Case{without("/messages/3/content"), "messages[3].content: missing required parameter"},
           Case{with("/messages/3/tool_call_id", "call_9"), "messages[3].tool_call_id: 'call_9' is not a tool call"},
           Case{unanswered.dump(), "The following tool_call_ids did not have response messages: call_1"},
           Case{orphan.dump(), "messages[2].role: messages with role 'tool' must be a response to a preceding message"},
           Case{twice.dump(), "messages[4].tool_call_id: 'call_1' is not a tool call"},
           Case{with("/tools", "lookup"), "tools: must be an array"},
           Case{with("/tools/0/type", "code_interpreter"), "tools[0].type: must be \"function\""},
           Case{without("/tools/0/function"), "tools[0].function: missing required parameter"},
           Case{without("/tools/0/function/name"), "tools[0].function.name: missing required parameter"},
           Case{with("/tools/0/function/name", "look.up"), "tools[0].function.name: must be 1 to 64"},
           Case{with("/tools/0/function/parameters", "{}"), "tools[0].function.parameters: must be a JSON Schema object"},
           Case{with("/tools/0/function/description", false), "tools[0].function.description: must be a string"},
       }) {
    auto parsed = ParseOpenAiRequest(c.body);
    ASSERT_FALSE(parsed.ok()) << c.body;
    EXPECT_NE(parsed.message().find(c.says), std::string::npos) << c.says << "\n  got: " << parsed.message();
  }
}

TEST(OpenAiAnswer, ToolCallsHaveTheApiShape) {
  auto c = ParseOpenAiRequest(R"({"model": "gpt-mock", "messages": [{"role": "user", "content": "{\"id\": 7}"}],
                                  "tools": [)" + Tool("lookup").dump() + "]}");
  ASSERT_TRUE(c.ok()) << c.message();
  Answer answer = DefaultPlan(*c);
  json got = json::parse(RenderOpenAiAnswer(answer, *c, "chatcmpl-mock1", 1764480000));
  Usage usage = EstimateUsage(*c, answer);
  json want = {
      {"id", "chatcmpl-mock1"},
      {"object", "chat.completion"},
      {"created", 1764480000},
      {"model", "gpt-mock"},
      {"choices", json::array({{{"index", 0},
                                {"message", {{"role", "assistant"},
                                             {"content", nullptr},
                                             {"tool_calls", json::array({{{"id", ToolCallId("call_", *c, 0)},
                                                                          {"type", "function"},
                                                                          {"function", {{"name", "lookup"},
                                                                                        {"arguments", "{\"id\":7}"}}}}})}}},
                                {"logprobs", nullptr},
                                {"finish_reason", "tool_calls"}}})},
      {"usage", {{"prompt_tokens", usage.input_tokens},
                 {"completion_tokens", usage.output_tokens},
                 {"total_tokens", usage.input_tokens + usage.output_tokens}}},
  };
  EXPECT_EQ(got, want) << got.dump(2);
  // The arguments are JSON text that parses back to the object.
  EXPECT_EQ(json::parse(got["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            json::parse(R"({"id": 7})"));
}

TEST(OpenAiAnswer, FinalTextHasTheApiShape) {
  auto c = ParseOpenAiRequest(TwoToolsAnswered().dump());
  ASSERT_TRUE(c.ok());
  c->tools.pop_back();
  json got = json::parse(RenderOpenAiAnswer(DefaultPlan(*c), *c, "chatcmpl-mock2", 1));
  EXPECT_EQ(got["choices"][0]["message"], json::parse(R"j({"role": "assistant", "content": "done: 2 tool call(s)"})j"));
  EXPECT_EQ(got["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(got["usage"]["total_tokens"].get<int>(),
            got["usage"]["prompt_tokens"].get<int>() + got["usage"]["completion_tokens"].get<int>());
}

TEST(OpenAiErrors, HaveTheApiShape) {
  json got = json::parse(RenderOpenAiError(ApiError{ErrorKind::kInvalidRequest, "messages: missing required parameter"}));
  EXPECT_EQ(got, json::parse(R"({"error": {"message": "messages: missing required parameter",
                                           "type": "invalid_request_error", "param": null, "code": null}})"));
  json key = json::parse(RenderOpenAiError(*CheckOpenAiHeaders(std::string("Bearer x"), std::string("y"))));
  EXPECT_EQ(key["error"]["code"], "invalid_api_key");
}

TEST(OpenAiHeaders, BearerKey) {
  for (const std::optional<std::string>& h :
       {std::optional<std::string>(), std::optional<std::string>("sk-1"), std::optional<std::string>("Bearer "),
        std::optional<std::string>("Basic dXNlcjpwYXNz"), std::optional<std::string>("bearer")}) {
    auto refused = CheckOpenAiHeaders(h, std::nullopt);
    ASSERT_TRUE(refused) << h.value_or("(none)");
    EXPECT_EQ(refused->status(), 401);
    EXPECT_NE(refused->message.find("You didn't provide an API key"), std::string::npos);
  }
  EXPECT_FALSE(CheckOpenAiHeaders(std::string("Bearer anything"), std::nullopt));
  EXPECT_FALSE(CheckOpenAiHeaders(std::string("Bearer sk-right"), std::string("sk-right")));
  auto wrong = CheckOpenAiHeaders(std::string("Bearer sk-wrong"), std::string("sk-right"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status(), 401);
  EXPECT_EQ(wrong->code, "invalid_api_key");
}

}  // namespace
}  // namespace volent::mockmodel
