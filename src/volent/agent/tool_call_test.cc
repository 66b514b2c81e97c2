// What the journal keeps of a tool's answer (JournaledBody): JSON within the
// limits as a value; anything else, however hostile, as bounded text.
#include "volent/agent/tool_call.h"

#include <gtest/gtest.h>

namespace volent::agent {
namespace {

TEST(JournaledBodyTest, JsonIsKeptAsAValue) {
  bool truncated = true;
  nlohmann::json body = JournaledBody(R"({"order":"A-1","items":[1,2]})", truncated);
  EXPECT_FALSE(truncated);
  EXPECT_EQ(body["order"], "A-1");
  EXPECT_EQ(body["items"].size(), 2u);
}

TEST(JournaledBodyTest, NestingPastTheOneDepthLimitIsKeptAsText) {
  // 10,000 levels: a parser without a limit recurses or allocates per level.
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  bool truncated = true;
  nlohmann::json body = JournaledBody(deep, truncated);
  EXPECT_FALSE(truncated);
  ASSERT_TRUE(body.is_string());
  EXPECT_EQ(body.get<std::string>(), deep);
  // Just within the limit it is a value.
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(JournaledBody(ok, truncated).is_array());
}

TEST(JournaledBodyTest, LongBodiesAreCutOnACharacterBoundary) {
  std::string body(kMaxJournaledBody - 1, 'a');
  body += "\xC3\xA9";  // é across the cut
  body += "tail";
  bool truncated = false;
  nlohmann::json kept = JournaledBody(body, truncated);
  EXPECT_TRUE(truncated);
  ASSERT_TRUE(kept.is_string());
  EXPECT_EQ(kept.get<std::string>(), std::string(kMaxJournaledBody - 1, 'a'));
}

TEST(JournaledBodyTest, InvalidUtf8IsReplaced) {
  bool truncated = true;
  nlohmann::json kept = JournaledBody("ok \xFF\xFE", truncated);
  EXPECT_FALSE(truncated);
  EXPECT_EQ(kept.get<std::string>(), "ok \xEF\xBF\xBD\xEF\xBF\xBD");
}

// What the model is shown of a completion: the result, for every kind, and
// nothing of what the journal keeps beside it.
TEST(ToolResultForModelTest, ASealedToolsResultAlone) {
  const nlohmann::json completion = {{"type", "tool"}, {"tool", "check"}, {"outcome", "answered"},
                                     {"result", {{"eligible", true}}}, {"stdin", "{\"id\":1}"},
                                     {"stop", "exit"}, {"fuel_used", 7}, {"http_exchanges", "{...}\n"},
                                     {"receipt", {{"payload", "x"}}}};
  for (const char* kind : {"wasm", "python", "js"}) {
    EXPECT_EQ(ToolResultForModel(kind, completion), nlohmann::json({{"eligible", true}})) << kind;
  }
  // A result that is a string, or null, is that value.
  EXPECT_EQ(ToolResultForModel("wasm", {{"outcome", "answered"}, {"result", "yes"}}), "yes");
  EXPECT_TRUE(ToolResultForModel("wasm", {{"outcome", "answered"}}).is_null());
}

TEST(ToolResultForModelTest, AnHttpToolsStatusAndBody) {
  const nlohmann::json completion = {{"type", "tool"}, {"tool", "lookup"}, {"outcome", "answered"},
                                     {"address", "10.0.0.7:443"}, {"status", 200}, {"body", {{"ok", 1}}}};
  EXPECT_EQ(ToolResultForModel("http", completion), nlohmann::json({{"status", 200}, {"body", {{"ok", 1}}}}));
  nlohmann::json cut = completion;
  cut["body_truncated"] = true;
  EXPECT_EQ(ToolResultForModel("http", cut)["body_truncated"], true);
  cut["body_truncated"] = "yes";  // not a boolean: not shown, and no exception
  EXPECT_FALSE(ToolResultForModel("http", cut).contains("body_truncated"));
}

TEST(ToolResultForModelTest, AFailureItsOutcomeAndReasonAlone) {
  const nlohmann::json failed = {{"type", "tool"}, {"tool", "move"}, {"outcome", "failed"},
                                 {"reason", "the tool ran out of time"}, {"stdin", "{}"},
                                 {"http_exchanges", "{\"answer\":{\"body\":\"secret\"}}\n"}};
  EXPECT_EQ(ToolResultForModel("python", failed),
            nlohmann::json({{"outcome", "failed"}, {"reason", "the tool ran out of time"}}));
  EXPECT_EQ(ToolResultForModel("http", {{"outcome", "denied"}, {"reason", "no entry"}, {"address", "x"}}),
            nlohmann::json({{"outcome", "denied"}, {"reason", "no entry"}}));
  // No such tool; an approver's refusal; a completion that cannot be read.
  EXPECT_EQ(ToolResultForModel("", {{"outcome", "unknown-tool"}, {"reason", "no tool \"x\""}})["outcome"],
            "unknown-tool");
  EXPECT_EQ(ToolResultForModel("", {{"outcome", "answered"}, {"result", 1}})["outcome"], "answered");
  EXPECT_EQ(ToolResultForModel("http", {{"outcome", "denied-by-approver"}, {"by", "alice"}, {"reason", "no"}}),
            nlohmann::json({{"outcome", "denied-by-approver"}, {"reason", "no"}}));
  EXPECT_EQ(ToolResultForModel("wasm", nlohmann::json::array())["outcome"], "failed");
  EXPECT_EQ(ToolResultForModel("wasm", {{"outcome", 3}})["outcome"], "failed");
}

}  // namespace
}  // namespace volent::agent
