#include "ampoule/gate/decision.h"

namespace ampoule::gate {

std::string_view DecisionName(Decision decision) {
  switch (decision) {
    case Decision::kSend: return "send";
    case Decision::kHold: return "hold";
    case Decision::kEscalate: return "escalate";
    case Decision::kRefuse: return "refuse";
  }
  return "refuse";
}

GateVerdict Decide(const GateFacts& f) {
  struct Finding {
    Decision decision;
    std::string reason;
  };
  std::vector<Finding> found;  // in rule order
  if (!f.verify_failure.empty()) found.push_back({Decision::kRefuse, "receipt: " + f.verify_failure});
  if (f.replay_attempted && !f.replay_failure.empty()) {
    found.push_back({Decision::kRefuse, "replay: " + f.replay_failure});
  }
  // A genuine receipt, but of a run sealed less than the policy requires:
  // the action must not rest on it. Judged on the signed value only.
  if (f.verify_failure.empty() && !run::IsolationAtLeast(f.isolation, f.min_isolation)) {
    std::string have = f.isolation != run::Isolation::kUnknown
                           ? "the run was sealed with " + std::string(run::IsolationName(f.isolation))
                           : "unknown (a version " + std::to_string(f.predicate_version) +
                                 " receipt does not say how its run was sealed)";
    found.push_back({Decision::kRefuse, "isolation: " + have + ", below the policy's minimum, " +
                                            std::string(run::IsolationName(f.min_isolation)) +
                                            " (min_isolation)"});
  }
  if (f.already_sent) {
    found.push_back({Decision::kEscalate, "duplicate: an action with this idempotency key was already sent"});
  }
  for (const FieldMismatch& m : f.mismatches) {
    found.push_back({Decision::kHold, "draft field '" + m.field + "' is " + m.draft +
                                          " but the signed output says " + m.signed_value});
  }
  // Not a forged receipt: the output is signed, but the draft pairs values
  // the policy does not let it pair. A person can fix the draft.
  for (const std::string& v : f.source_violations) found.push_back({Decision::kHold, v});
  if (f.data_age_seconds && *f.data_age_seconds < -kMaxClockSkewSeconds) {
    found.push_back({Decision::kHold, "data dated " + std::to_string(-*f.data_age_seconds) +
                                          " s in the future: the draft's data_as_of is wrong, or clocks disagree"});
  } else if (f.data_age_seconds && *f.data_age_seconds > 0 &&
             static_cast<uint64_t>(*f.data_age_seconds) > f.max_data_age_seconds) {
    found.push_back({Decision::kHold, "stale data: " + std::to_string(*f.data_age_seconds) +
                                          " s old, the policy allows " +
                                          std::to_string(f.max_data_age_seconds) + " s"});
  }
  if (!f.replay_attempted && f.verify_failure.empty()) {
    found.push_back({Decision::kEscalate, "not replayed: the run used " + std::to_string(f.fuel_used) +
                                              " fuel, over the policy's ceiling of " +
                                              std::to_string(f.fuel_ceiling)});
  }
  GateVerdict verdict;
  verdict.decision = found.empty() ? Decision::kSend : found.front().decision;
  for (Finding& x : found) verdict.reasons.push_back(std::move(x.reason));
  if (found.empty()) verdict.reasons.push_back("receipt verified, replay matched, draft matches the signed output");
  return verdict;
}

}  // namespace ampoule::gate
