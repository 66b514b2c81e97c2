// How a step ended, as its completion records it in the journal (the
// "outcome" field, docs/agent-runs.md): one enum and one mapping to and from
// the names, so no code compares the names as strings.
//
// Thread-safe: no state.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/egress/gate.h"

namespace volent::agent {

enum class StepOutcome {
  kAnswered,          // the model or the tool answered
  kError,             // the model call failed (its kind and message beside it)
  kFailed,            // the tool failed (its reason beside it)
  kDenied,            // the egress gate refused the request
  kNotSent,           // the request could not be sent
  kUnknownTool,       // the model asked for a tool the agent does not have
  kDeniedByApprover,  // a person denied the call
  kUnsupported,       // a tool kind this node does not run
};

// The name journaled for `outcome`, e.g. "denied-by-approver".
const char* StepOutcomeName(StepOutcome outcome);
// The outcome named `name` exactly; nullopt for any other text.
std::optional<StepOutcome> StepOutcomeFromName(std::string_view name);
// The step outcome of an egress gate's outcome (each is one of them).
StepOutcome StepOutcomeOf(egress::Outcome outcome);
// The outcome `completion` records; nullopt if none, or not a known name.
std::optional<StepOutcome> RecordedOutcome(const nlohmann::json& completion);

}  // namespace volent::agent
