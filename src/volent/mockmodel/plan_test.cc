#include "volent/mockmodel/plan.h"

#include <gtest/gtest.h>

namespace volent::mockmodel {
namespace {

using json = nlohmann::json;

Conversation WithTools(std::vector<std::string> tools, size_t results, std::string first = "hello") {
  Conversation c;
  c.model = "mock-1";
  c.tools = std::move(tools);
  c.tool_results = results;
  c.assistant_turns = results;
  c.first_user_text = std::move(first);
  return c;
}

TEST(DefaultPlan, NoToolsAnswersTextAtOnce) {
  Answer a = DefaultPlan(WithTools({}, 0));
  EXPECT_TRUE(a.tool_calls.empty());
  EXPECT_EQ(a.text, "done: 0 tool call(s)");
}

TEST(DefaultPlan, CallsEachToolOnceInOrderThenFinishes) {
  std::vector<std::string> tools = {"lookup", "refund", "notify"};
  for (size_t i = 0; i < tools.size(); ++i) {
    Answer a = DefaultPlan(WithTools(tools, i));
    ASSERT_EQ(a.tool_calls.size(), 1u) << i;
    EXPECT_EQ(a.tool_calls[0].name, tools[i]);
    EXPECT_EQ(a.tool_calls[0].arguments, json::object());
    EXPECT_TRUE(a.text.empty());
  }
  Answer last = DefaultPlan(WithTools(tools, 3));
  EXPECT_TRUE(last.tool_calls.empty());
  EXPECT_EQ(last.text, "done: 3 tool call(s)");
  // More results than tools (a client that called something twice): still done.
  EXPECT_EQ(DefaultPlan(WithTools(tools, 5)).text, "done: 5 tool call(s)");
}

TEST(DefaultPlan, ArgumentsAreTheFirstUserMessageWhenItIsAJsonObject) {
  Answer a = DefaultPlan(WithTools({"refund"}, 0, R"({"order": 42, "reason": "late", "items": [1, 2]})"));
  ASSERT_EQ(a.tool_calls.size(), 1u);
  EXPECT_EQ(a.tool_calls[0].arguments, json::parse(R"({"order": 42, "reason": "late", "items": [1, 2]})"));
  for (const char* text : {"[1, 2]", "42", "\"text\"", "{not json", "", "{} trailing", "null"}) {
    Answer b = DefaultPlan(WithTools({"refund"}, 0, text));
    ASSERT_EQ(b.tool_calls.size(), 1u);
    EXPECT_EQ(b.tool_calls[0].arguments, json::object()) << text;
  }
}

TEST(DefaultPlan, IsAPureFunction) {
  Conversation c = WithTools({"a", "b"}, 1, R"({"x": 1})");
  Answer first = DefaultPlan(c), second = DefaultPlan(c);
  ASSERT_EQ(first.tool_calls.size(), 1u);
  EXPECT_EQ(first.tool_calls[0].name, second.tool_calls[0].name);
  EXPECT_EQ(first.tool_calls[0].arguments, second.tool_calls[0].arguments);
}

TEST(Script, ParsesToolCallsAndText) {
  auto script = ParseScript(R"([
    {"tool_calls": [{"name": "lookup", "arguments": {"id": 7}}, {"name": "notify"}]},
    {"text": "all done"}
  ])");
  ASSERT_TRUE(script.ok()) << script.message();
  ASSERT_EQ(script->size(), 2u);
  ASSERT_EQ((*script)[0].tool_calls.size(), 2u);
  EXPECT_EQ((*script)[0].tool_calls[0].name, "lookup");
  EXPECT_EQ((*script)[0].tool_calls[0].arguments, json::parse(R"({"id": 7})"));
  EXPECT_EQ((*script)[0].tool_calls[1].arguments, json::object());
  EXPECT_EQ((*script)[1].text, "all done");
  EXPECT_TRUE(ParseScript("[]").ok());
}

TEST(Script, RejectsWhatItDoesNotKnowAndSaysWhere) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {
           Case{"{\"text\": \"x\"}", "JSON array"},
           Case{"[1]", "entry 0 must be an object"},
           Case{"[{\"text\": \"a\"}, {}]", "entry 1 must have exactly one field"},
           Case{"[{\"text\": \"a\", \"tool_calls\": []}]", "exactly one field"},
           Case{"[{\"texts\": \"a\"}]", "exactly one field"},
           Case{"[{\"text\": 5}]", "text must be a string"},
           Case{"[{\"tool_calls\": []}]", "non-empty array"},
           Case{"[{\"tool_calls\": [{\"arguments\": {}}]}]", "tool_calls[0].name"},
           Case{"[{\"tool_calls\": [{\"name\": \"a\", \"arguments\": [1]}]}]", "tool_calls[0].arguments must be a JSON object"},
           Case{"[{\"tool_calls\": [{\"name\": \"a\", \"args\": {}}]}]", "unknown field 'args'"},
           Case{"[{\"text\": \"a\"}", "not JSON"},
       }) {
    auto script = ParseScript(c.text);
    ASSERT_FALSE(script.ok()) << c.text;
    EXPECT_NE(script.message().find(c.says), std::string::npos) << c.text << " -> " << script.message();
  }
}

TEST(Script, AnswersInTurnPerConversationThenFinishes) {
  auto script = ParseScript(R"([{"tool_calls": [{"name": "x"}]}, {"text": "bye"}])");
  ASSERT_TRUE(script.ok());
  Conversation c = WithTools({"a", "b"}, 0);
  c.assistant_turns = 0;
  EXPECT_EQ(ScriptedAnswer(*script, c).tool_calls.at(0).name, "x");
  c.assistant_turns = 1;
  c.tool_results = 1;
  EXPECT_EQ(ScriptedAnswer(*script, c).text, "bye");
  c.assistant_turns = 2;
  EXPECT_EQ(ScriptedAnswer(*script, c).text, "done: 1 tool call(s)");
}

TEST(ToolCallIds, SameConversationSameIdsOthersDiffer) {
  Conversation a = WithTools({"t"}, 0, "first");
  Conversation b = WithTools({"t"}, 0, "second");
  EXPECT_EQ(ToolCallId("toolu_", a, 0), ToolCallId("toolu_", a, 0));
  EXPECT_NE(ToolCallId("toolu_", a, 0), ToolCallId("toolu_", a, 1));
  EXPECT_NE(ToolCallId("toolu_", a, 0), ToolCallId("toolu_", b, 0));
  Conversation later = a;
  later.assistant_turns = 1;
  EXPECT_NE(ToolCallId("toolu_", a, 0), ToolCallId("toolu_", later, 0));
  EXPECT_EQ(ToolCallId("call_", a, 0).rfind("call_mock", 0), 0u);
}

TEST(Usage, IsAboutFourBytesAToken) {
  Conversation c = WithTools({}, 0);
  c.input_bytes = 400;
  Answer a;
  a.text = std::string(40, 'x');
  Usage u = EstimateUsage(c, a);
  EXPECT_EQ(u.input_tokens, 100u);
  EXPECT_EQ(u.output_tokens, 10u);
  c.input_bytes = 0;
  a.text.clear();
  u = EstimateUsage(c, a);
  EXPECT_EQ(u.input_tokens, 1u);
  EXPECT_EQ(u.output_tokens, 1u);
}

}  // namespace
}  // namespace volent::mockmodel
