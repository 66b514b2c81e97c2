// The provider codecs (anthropic.h, openai.h): the exact request body of a
// whole conversation, and answers read from good, odd and broken bodies.
#include <gtest/gtest.h>

#include "volent/model/anthropic.h"
#include "volent/model/openai.h"
#include "volent/model/test_conversation.h"

namespace volent::model {
namespace {

using nlohmann::json;

TEST(AnthropicCodec, RequestBodyOfAWholeConversation) {
  json expected = json::parse(R"({
    "model": "claude-sonnet-4-5",
    "max_tokens": 512,
    "system": "You process refunds.",
    "messages": [
      {"role": "user", "content": "Refund order 42."},
      {"role": "assistant", "content": [
        {"type": "text", "text": "Looking it up."},
        {"type": "tool_use", "id": "call_1", "name": "lookup_order", "input": {"order_id": "42"}},
        {"type": "tool_use", "id": "call_2", "name": "issue_refund", "input": {"amount": 5}}]},
      {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "{\"body\":{\"total\":10},\"status\":200}"},
        {"type": "tool_result", "tool_use_id": "call_2", "content": "denied-by-approver", "is_error": true},
        {"type": "text", "text": "Only half, please."}]},
      {"role": "assistant", "content": [
        {"type": "tool_use", "id": "call_3", "name": "issue_refund", "input": {}}]}
    ],
    "tools": [
      {"name": "lookup_order", "description": "Fetch an order.",
       "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}},
      {"name": "issue_refund", "input_schema": {"type": "object"}}
    ]
  })");
  EXPECT_EQ(AnthropicRequestBody("claude-sonnet-4-5", testing::WholeConversation()), expected);
}

TEST(AnthropicCodec, MinimalRequestHasNoSystemOrTools) {
  Conversation c;
  c.messages = {Message::User("hi")};
  EXPECT_EQ(AnthropicRequestBody("m", c),
            json::parse(R"({"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"hi"}]})"));
}

TEST(AnthropicCodec, ParsesTextAndSeveralToolCalls) {
  core::Result<Answer> p = ParseAnthropicAnswer(R"({
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
    "content": [
      {"type": "text", "text": "I will look."},
      {"type": "thinking", "thinking": "..."},
      {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {"order_id": "42"}},
      {"type": "tool_use", "id": "toolu_2", "name": "ping", "input": {}},
      {"type": "text", "text": "Done."}],
    "stop_reason": "tool_use", "stop_sequence": null,
    "usage": {"input_tokens": 120, "output_tokens": 33}})");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->text, "I will look.\nDone.");
  ASSERT_EQ(p->tool_calls.size(), 2u);
  EXPECT_EQ(p->tool_calls[0].id, "toolu_1");
  EXPECT_EQ(p->tool_calls[0].name, "lookup_order");
  EXPECT_EQ(p->tool_calls[0].arguments, json({{"order_id", "42"}}));
  EXPECT_EQ(p->tool_calls[1].arguments, json::object());
  EXPECT_EQ(p->stop, StopReason::kToolUse);
  EXPECT_EQ(p->stop_detail, "tool_use");
  EXPECT_EQ(p->usage.input_tokens, 120);
  EXPECT_EQ(p->usage.output_tokens, 33);
}

TEST(AnthropicCodec, StopReasons) {
  auto stop = [](const char* reason) {
    core::Result<Answer> p = ParseAnthropicAnswer(std::string(R"({"content":[],"stop_reason":")") + reason + "\"}");
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.message());
    return p.ok() ? p->stop : StopReason::kOther;
  };
  EXPECT_EQ(stop("end_turn"), StopReason::kEnd);
  EXPECT_EQ(stop("stop_sequence"), StopReason::kEnd);
  EXPECT_EQ(stop("max_tokens"), StopReason::kMaxTokens);
  EXPECT_EQ(stop("refusal"), StopReason::kOther);
  core::Result<Answer> bare = ParseAnthropicAnswer(R"({"content":[{"type":"text","text":"hi"}]})");
  ASSERT_TRUE(bare.ok()) << bare.message();  // no stop_reason, no usage: other, zero counts
  EXPECT_EQ(bare->stop, StopReason::kOther);
  EXPECT_EQ(bare->usage.input_tokens, 0);
}

TEST(AnthropicCodec, BrokenAnswersAreErrors) {
  auto error = [](std::string_view body) {
    core::Result<Answer> p = ParseAnthropicAnswer(body);
    EXPECT_FALSE(p.ok()) << body;
    return p.ok() ? std::string() : p.message();
  };
  EXPECT_NE(error("not json").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error("[1]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error(R"({"stop_reason":"end_turn"})").find("no \"content\" array"), std::string::npos);
  EXPECT_NE(error(R"({"content":[{"text":"x"}]})").find("content block 0 has no \"type\""), std::string::npos);
  EXPECT_NE(error(R"({"content":[{"type":"text"}]})").find("no \"text\" string"), std::string::npos);
  EXPECT_NE(error(R"({"content":[{"type":"tool_use","name":"a","input":{}}]})").find("no \"id\" or \"name\""),
            std::string::npos);
  std::string e = error(R"({"content":[{"type":"tool_use","id":"t1","name":"a","input":"{}"}]})");
  EXPECT_NE(e.find("tool call \"t1\" (a)"), std::string::npos) << e;
  EXPECT_NE(e.find("not a JSON object"), std::string::npos) << e;
  e = error(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_EQ(e, "the answer is an error: overloaded_error: Overloaded");
}

TEST(AnthropicCodec, ErrorBodies) {
  EXPECT_EQ(AnthropicErrorMessage(
                R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})"),
            "authentication_error: invalid x-api-key");
  EXPECT_EQ(AnthropicErrorMessage(R"({"type":"error","error":{"message":"m"}})"), "m");
  EXPECT_EQ(AnthropicErrorMessage("<html>bad gateway</html>"), "");
  EXPECT_EQ(AnthropicErrorMessage(R"({"type":"message","error":{"type":"x"}})"), "");
  std::string long_message(5000, 'a');
  EXPECT_LT(AnthropicErrorMessage(R"({"type":"error","error":{"type":"t","message":")" + long_message + "\"}}").size(),
            400u);
}

TEST(OpenAiCodec, RequestBodyOfAWholeConversation) {
  json expected = json::parse(R"({
    "model": "gpt-4o",
    "messages": [
      {"role": "system", "content": "You process refunds."},
      {"role": "user", "content": "Refund order 42."},
      {"role": "assistant", "content": "Looking it up.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": "{\"order_id\":\"42\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "issue_refund", "arguments": "{\"amount\":5}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "{\"body\":{\"total\":10},\"status\":200}"},
      {"role": "tool", "tool_call_id": "call_2", "content": "error: denied-by-approver"},
      {"role": "user", "content": "Only half, please."},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_3", "type": "function", "function": {"name": "issue_refund", "arguments": "{}"}}]}
    ],
    "max_completion_tokens": 512,
    "tools": [
      {"type": "function", "function": {"name": "lookup_order", "description": "Fetch an order.",
       "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}},
      {"type": "function", "function": {"name": "issue_refund", "parameters": {"type": "object"}}}
    ]
  })");
  EXPECT_EQ(OpenAiRequestBody("gpt-4o", testing::WholeConversation()), expected);
  json compatible = OpenAiRequestBody("llama", testing::WholeConversation(), OpenAiDialect::kCompatible);
  EXPECT_EQ(compatible["max_tokens"], 512);
  EXPECT_FALSE(compatible.contains("max_completion_tokens"));
}

TEST(OpenAiCodec, ParsesTextAndSeveralToolCalls) {
  core::Result<Answer> p = ParseOpenAiAnswer(R"({
    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
      "role": "assistant", "content": "Checking.",
      "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "lookup_order", "arguments": "{\"order_id\": \"42\"}"}},
        {"id": "call_b", "type": "function", "function": {"name": "ping", "arguments": ""}},
        {"id": "call_c", "type": "function", "function": {"name": "obj", "arguments": {"x": 1}}}]}}],
    "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57}})");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->text, "Checking.");
  ASSERT_EQ(p->tool_calls.size(), 3u);
  EXPECT_EQ(p->tool_calls[0].id, "call_a");
  EXPECT_EQ(p->tool_calls[0].name, "lookup_order");
  EXPECT_EQ(p->tool_calls[0].arguments, json({{"order_id", "42"}}));
  EXPECT_EQ(p->tool_calls[1].arguments, json::object());
  EXPECT_EQ(p->tool_calls[2].arguments, json({{"x", 1}}));
  EXPECT_EQ(p->stop, StopReason::kToolUse);
  EXPECT_EQ(p->usage.input_tokens, 50);
  EXPECT_EQ(p->usage.output_tokens, 7);
}

TEST(OpenAiCodec, StopReasons) {
  auto stop = [](const char* reason, bool with_call = false) {
    std::string calls = with_call ? R"(,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}])" : "";
    core::Result<Answer> p = ParseOpenAiAnswer(std::string(R"({"choices":[{"message":{"content":null)") + calls +
                                       R"(},"finish_reason":")" + reason + "\"}]}");
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.message());
    return p.ok() ? p->stop : StopReason::kOther;
  };
  EXPECT_EQ(stop("stop"), StopReason::kEnd);
  EXPECT_EQ(stop("stop", true), StopReason::kToolUse);  // some compatible servers
  EXPECT_EQ(stop("length"), StopReason::kMaxTokens);
  EXPECT_EQ(stop("content_filter"), StopReason::kOther);
}

TEST(OpenAiCodec, MalformedArgumentsNameTheCall) {
  core::Result<Answer> p = ParseOpenAiAnswer(R"({"choices":[{"finish_reason":"tool_calls","message":{"tool_calls":[
      {"id":"call_ok","type":"function","function":{"name":"a","arguments":"{}"}},
      {"id":"call_bad","type":"function","function":{"name":"lookup_order","arguments":"{\"order_id\": 4"}}]}}]})");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("tool call \"call_bad\" (lookup_order)"), std::string::npos) << p.message();
  EXPECT_NE(p.message().find("not valid JSON"), std::string::npos) << p.message();
  p = ParseOpenAiAnswer(R"({"choices":[{"message":{"tool_calls":[
      {"id":"c9","type":"function","function":{"name":"f","arguments":"[1,2]"}}]}}]})");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("tool call \"c9\" (f) has arguments that are not a JSON object"), std::string::npos) << p.message();
}

TEST(OpenAiCodec, BrokenAnswersAreErrors) {
  auto error = [](std::string_view body) {
    core::Result<Answer> p = ParseOpenAiAnswer(body);
    EXPECT_FALSE(p.ok()) << body;
    return p.ok() ? std::string() : p.message();
  };
  EXPECT_NE(error("").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error(R"({"choices":[]})").find("no \"choices\""), std::string::npos);
  EXPECT_NE(error(R"({"id":"x"})").find("no \"choices\""), std::string::npos);
  EXPECT_NE(error(R"({"choices":[{"finish_reason":"stop"}]})").find("no \"message\""), std::string::npos);
  EXPECT_NE(error(R"({"choices":[{"message":{"content":5}}]})").find("neither text nor null"), std::string::npos);
  EXPECT_NE(error(R"({"choices":[{"message":{"tool_calls":{}}}]})").find("not an array"), std::string::npos);
  EXPECT_NE(error(R"({"choices":[{"message":{"tool_calls":[{"type":"function"}]}}]})").find("tool call 0 has no \"id\""),
            std::string::npos);
  EXPECT_NE(error(R"({"choices":[{"message":{"tool_calls":[{"id":"c","function":{}}]}}]})").find("no function name"),
            std::string::npos);
  EXPECT_EQ(error(R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})"),
            "the answer is an error: insufficient_quota: You exceeded your current quota");
}

TEST(OpenAiCodec, ErrorBodies) {
  EXPECT_EQ(OpenAiErrorMessage(R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})"),
            "invalid_request_error: Incorrect API key provided");
  EXPECT_EQ(OpenAiErrorMessage(R"({"error":{"message":"m","code":"c"}})"), "c: m");
  EXPECT_EQ(OpenAiErrorMessage(R"({"error":"model not found"})"), "model not found");
  EXPECT_EQ(OpenAiErrorMessage(R"({"choices":[]})"), "");
  EXPECT_EQ(OpenAiErrorMessage("\xff\xfe"), "");
}

TEST(Codecs, DeepNestingIsRefusedNotACrash) {
  const std::string deep = std::string(1 << 20, '[') + std::string(1 << 20, ']');
  EXPECT_FALSE(ParseAnthropicAnswer(deep).ok());
  EXPECT_FALSE(ParseOpenAiAnswer(deep).ok());
  std::string args = R"({"choices":[{"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"f",)"
                     R"("arguments":")" + std::string(100000, '[') + R"("}}]}}]})";
  core::Result<Answer> p = ParseOpenAiAnswer(args);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("not valid JSON"), std::string::npos) << p.message().substr(0, 200);
  // Strings may hold brackets: only structure counts.
  EXPECT_TRUE(ParseAnthropicAnswer(R"({"content":[{"type":"text","text":")" + std::string(1000, '[') + R"("}]})").ok());
}

TEST(Conversation, AnswerRoundTripsThroughItsJournalForm) {
  Answer a;
  a.text = "hi";
  a.tool_calls = {{"c1", "f", {{"x", 1}}}};
  a.stop = StopReason::kToolUse;
  a.stop_detail = "tool_use";
  a.usage = {3, 4};
  json j = AnswerToJson(a);
  EXPECT_EQ(j, json::parse(R"({"text":"hi","tool_calls":[{"id":"c1","name":"f","arguments":{"x":1}}],
                                "stop":"tool_use","stop_detail":"tool_use","usage":{"input_tokens":3,"output_tokens":4}})"));
  std::optional<Answer> back = AnswerFromJson(j);
  ASSERT_TRUE(back);
  EXPECT_EQ(AnswerToJson(*back), j);
  EXPECT_FALSE(AnswerFromJson(json::array()));
  EXPECT_FALSE(AnswerFromJson(json{{"text", "x"}}));
  EXPECT_FALSE(AnswerFromJson(json{{"text", "x"}, {"tool_calls", {{{"name", "f"}}}}, {"stop", "end"}}));
}

}  // namespace
}  // namespace volent::model
