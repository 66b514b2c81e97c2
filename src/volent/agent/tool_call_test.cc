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

}  // namespace
}  // namespace volent::agent
