#include "volent/agent/step_outcome.h"

#include <gtest/gtest.h>

namespace volent::agent {
namespace {

TEST(StepOutcome, EachNameMapsBackToItsOutcome) {
  for (auto o : {StepOutcome::kAnswered, StepOutcome::kError, StepOutcome::kFailed, StepOutcome::kDenied,
                 StepOutcome::kNotSent, StepOutcome::kUnknownTool, StepOutcome::kDeniedByApprover,
                 StepOutcome::kUnsupported}) {
    EXPECT_EQ(StepOutcomeFromName(StepOutcomeName(o)), o) << StepOutcomeName(o);
  }
}

TEST(StepOutcome, TheGatesOutcomesKeepTheirNames) {
  for (auto o : {egress::Outcome::kDenied, egress::Outcome::kNotSent, egress::Outcome::kFailed,
                 egress::Outcome::kAnswered}) {
    EXPECT_EQ(std::string_view(StepOutcomeName(StepOutcomeOf(o))), egress::OutcomeName(o));
  }
}

TEST(StepOutcome, ACompletionRecordsOneOnlyByItsExactName) {
  EXPECT_EQ(RecordedOutcome({{"outcome", "answered"}}), StepOutcome::kAnswered);
  EXPECT_EQ(RecordedOutcome({{"outcome", "Answered"}}), std::nullopt);
  EXPECT_EQ(RecordedOutcome({{"outcome", 1}}), std::nullopt);
  EXPECT_EQ(RecordedOutcome(nlohmann::json::array()), std::nullopt);
  EXPECT_EQ(RecordedOutcome(nlohmann::json::object()), std::nullopt);
}

}  // namespace
}  // namespace volent::agent
