// volent-init's reading of the kernel command line: the test switch found
// among the kernel's own parameters, quoting as the kernel splits words, and
// an unknown test named in the error.
#include "volent/init/cmdline.h"

#include <gtest/gtest.h>

namespace volent::init {
namespace {

TEST(InitCmdlineTest, NoSwitchIsNormalLife) {
  auto o = ParseCmdline("console=ttyS0 panic=-1 quiet\n");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->test, TestMode::kNone);
  EXPECT_EQ(ParseCmdline("")->test, TestMode::kNone);
}

TEST(InitCmdlineTest, HeartbeatSwitchAmongKernelParameters) {
  auto o = ParseCmdline("console=ttyS0 volent.test=heartbeat panic=-1\n");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->test, TestMode::kHeartbeat);
  EXPECT_EQ(ParseCmdline("\tvolent.test=heartbeat")->test, TestMode::kHeartbeat);
}

TEST(InitCmdlineTest, QuotedValuesAreOneWord) {
  // The switch inside another parameter's quoted value is not the switch.
  auto o = ParseCmdline("dyndbg=\"x volent.test=heartbeat\" quiet");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->test, TestMode::kNone);
  EXPECT_EQ(ParseCmdline("volent.test=\"heartbeat\"")->test, TestMode::kHeartbeat);
}

TEST(InitCmdlineTest, SimilarNamesAreNotTheSwitch) {
  EXPECT_EQ(ParseCmdline("xvolent.test=heartbeat volent.testing=1")->test, TestMode::kNone);
}

TEST(InitCmdlineTest, UnknownTestIsNamed) {
  auto o = ParseCmdline("volent.test=reboot");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.message().find("volent.test=reboot"), std::string::npos) << o.message();
  EXPECT_NE(o.message().find("heartbeat"), std::string::npos) << o.message();
  EXPECT_FALSE(ParseCmdline("volent.test=").ok());
}

}  // namespace
}  // namespace volent::init
