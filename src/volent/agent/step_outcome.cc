#include "volent/agent/step_outcome.h"

namespace volent::agent {
namespace {

constexpr StepOutcome kAll[] = {StepOutcome::kAnswered,    StepOutcome::kError,          StepOutcome::kFailed,
                                StepOutcome::kDenied,      StepOutcome::kNotSent,        StepOutcome::kUnknownTool,
                                StepOutcome::kDeniedByApprover, StepOutcome::kUnsupported};

}  // namespace

const char* StepOutcomeName(StepOutcome outcome) {
  switch (outcome) {
    case StepOutcome::kAnswered: return "answered";
    case StepOutcome::kError: return "error";
    case StepOutcome::kFailed: return "failed";
    case StepOutcome::kDenied: return "denied";
    case StepOutcome::kNotSent: return "not-sent";
    case StepOutcome::kUnknownTool: return "unknown-tool";
    case StepOutcome::kDeniedByApprover: return "denied-by-approver";
    case StepOutcome::kUnsupported: return "unsupported";
  }
  return "failed";  // not reached: every outcome is named above
}

std::optional<StepOutcome> StepOutcomeFromName(std::string_view name) {
  for (StepOutcome outcome : kAll) {
    if (name == StepOutcomeName(outcome)) return outcome;
  }
  return std::nullopt;
}

StepOutcome StepOutcomeOf(egress::Outcome outcome) {
  switch (outcome) {
    case egress::Outcome::kDenied: return StepOutcome::kDenied;
    case egress::Outcome::kNotSent: return StepOutcome::kNotSent;
    case egress::Outcome::kFailed: return StepOutcome::kFailed;
    case egress::Outcome::kAnswered: return StepOutcome::kAnswered;
  }
  return StepOutcome::kFailed;  // not reached
}

std::optional<StepOutcome> RecordedOutcome(const nlohmann::json& completion) {
  if (!completion.is_object()) return std::nullopt;
  auto it = completion.find("outcome");
  if (it == completion.end() || !it->is_string()) return std::nullopt;
  return StepOutcomeFromName(it->get_ref<const std::string&>());
}

}  // namespace volent::agent
