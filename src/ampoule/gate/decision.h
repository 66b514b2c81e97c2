// The trust gate's rule (docs/gate.md): from what was found out about an action,
// one decision with its reasons. A pure function, so every rule and their
// order can be tested exhaustively; gathering the facts (verifying the
// receipt, replaying it, reading the decision log) happens elsewhere.
//
// The rules, most serious first; the first that applies decides:
//   1. refuse    the receipt does not verify (forged, altered, untrusted
//                key, kernel not pinned, the run failed) or replay failed,
//                or it verified but says its run was sealed below the
//                policy's minimum isolation (or does not say, unless the
//                minimum is none)
//   2. escalate  an action with the same idempotency key was already sent:
//                a person decides (it must never go out twice, so this comes
//                before "hold": fixing a held duplicate would send it again)
//   3. hold      the result checks out but the draft differs from the signed
//                output, or a field comes from elsewhere in the output than
//                the policy pins for the action's kind, or the data it rests on is older than the policy
//                allows (or dated more than kMaxClockSkewSeconds in the
//                future, which would dodge the age rule): it waits for a fix
//   4. escalate  the receipt verified but replay was not attempted because
//                the run's fuel is over the policy's ceiling: too costly to
//                re-check automatically
//   5. send      otherwise
// Every reason that applies is listed, not only the deciding one.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/run/run_record.h"

namespace ampoule::gate {

enum class Decision { kSend, kHold, kEscalate, kRefuse };
std::string_view DecisionName(Decision decision);  // "send", "hold", "escalate", "refuse"

// A field the draft asserts that differs from the output field backing it.
struct FieldMismatch {
  std::string field;   // the draft's name, e.g. "amount"
  std::string draft;   // the draft's value, as JSON
  std::string signed_value;  // the signed output's value, as JSON ("missing" when absent)
};

// How far in the future a draft's data may be dated: clocks of the agent's
// and the gate's machines may disagree by this much.
inline constexpr int64_t kMaxClockSkewSeconds = 300;

struct GateFacts {
  // Empty when the receipt verified with a pinned kernel and status 0.
  std::string verify_failure;
  // Replay: attempted or not (fuel over the ceiling), and if attempted, why it
  // failed (empty: it matched).
  bool replay_attempted = false;
  std::string replay_failure;
  // The signed record's isolation (kUnknown until one was read, or for a
  // receipt of version 2 or 3) and the policy's minimum; checked once the
  // receipt verified.
  run::Isolation isolation = run::Isolation::kUnknown;
  run::Isolation min_isolation = run::Isolation::kJail;
  uint32_t predicate_version = 0;  // of the signed record, for the reason
  uint64_t fuel_used = 0;
  uint64_t fuel_ceiling = 0;
  std::vector<FieldMismatch> mismatches;
  // Fields whose pointer breaks the policy's rule for the kind, one
  // reason each (CheckSources, field_check.h).
  std::vector<std::string> source_violations;
  // The age of the data the action rests on (negative: dated in the future)
  // and the policy's maximum.
  std::optional<int64_t> data_age_seconds;
  uint64_t max_data_age_seconds = 0;
  // The decision log already holds a send for this idempotency key.
  bool already_sent = false;
};

struct GateVerdict {
  Decision decision = Decision::kRefuse;
  std::vector<std::string> reasons;  // the deciding reason first
};

GateVerdict Decide(const GateFacts& facts);

}  // namespace ampoule::gate
