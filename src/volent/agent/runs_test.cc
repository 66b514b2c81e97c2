#include "volent/agent/runs.h"

#include <gtest/gtest.h>

namespace volent::agent {
namespace {

TEST(RunStatus, EachNameMapsBackToItsStatus) {
  for (RunStatus status : kAllRunStatuses) EXPECT_EQ(RunStatusFromName(RunStatusName(status)), status);
  EXPECT_EQ(RunStatusName(RunStatus::kWaitingApproval), "waiting-approval");
}

TEST(RunStatus, OnlyExactNamesAreStatuses) {
  EXPECT_EQ(RunStatusFromName(""), std::nullopt);
  EXPECT_EQ(RunStatusFromName("Finished"), std::nullopt);
  EXPECT_EQ(RunStatusFromName("finished "), std::nullopt);
  EXPECT_EQ(RunStatusFromName("waiting_approval"), std::nullopt);
}

}  // namespace
}  // namespace volent::agent
