// The heartbeat line's format: what tests/image/boot_test.sh and
// scripts/image/boot.sh look for on the console.
#include "volent/init/heartbeat.h"

#include <gtest/gtest.h>

namespace volent::init {
namespace {

TEST(InitHeartbeatTest, SecondsWithMilliseconds) {
  EXPECT_EQ(HeartbeatLine({1, 873000000}), "heartbeat 1.873");
  EXPECT_EQ(HeartbeatLine({0, 5999999}), "heartbeat 0.005");
  EXPECT_EQ(HeartbeatLine({86400, 0}), "heartbeat 86400.000");
}

TEST(InitHeartbeatTest, BootClockRuns) {
  auto a = SinceBoot();
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_GT(a->tv_sec * 1000000000L + a->tv_nsec, 0);
}

}  // namespace
}  // namespace volent::init
