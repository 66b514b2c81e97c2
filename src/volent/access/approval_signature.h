// An approver's own signature over a decision (docs/auditor-guide.md,
// "Checking a signed approval";
// docs/decisions/0049-credentials-bound-to-their-holder.md): Ed25519 over
// the statement
//
//   "volent-approval/v2\n"
//   "kind: tool-call-decision\n"
//   "decision: " DECISION "\n"
//   "call_digest: " CALL_DIGEST "\n"
//   "decider: " DECIDER "\n"
//
// DECISION is "approved" or "denied"; CALL_DIGEST is "sha256:<hex>", the
// hash of the approval-requested journal entry of the pending call
// (docs/journal.md, "Hash encoding"), which covers the agent, the run, the
// step, the tool and its arguments and the entry's place in the chain;
// DECIDER names the credential that decides: "token:<id>" (its public id)
// or "certificate:sha256:<hex>" (its fingerprint). Each field is named, so
// the statement cannot be read as another one; the version line and the
// kind bind its meaning. The node accepts a signature only by the deciding
// credential's own registered approval key, over a statement naming that
// credential; an auditor checks the same off the node. A statement of the
// first form ("volent-approval/v1", which named no decider) is refused.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/ed25519.h"
#include "core/result.h"
#include "volent/access/principal.h"

namespace volent::access {

inline constexpr std::string_view kApprovalSignatureDomain = "volent-approval/v2";
inline constexpr std::string_view kApprovalStatementKind = "tool-call-decision";

// The bytes signed for `approve` of the call with `call_digest` by `decider`.
std::string ApprovalMessage(bool approve, std::string_view call_digest, std::string_view decider);

// The DECIDER a principal's statement names: "token:<id>",
// "certificate:sha256:<hex>", or "" (development, nobody: no credential to
// sign for).
std::string DeciderOf(const Principal& principal);
// The same from a journaled identity (Principal::ToJson), or "".
std::string DeciderOf(const nlohmann::json& identity);

// The journaled form of a signature: {"scheme": "ed25519", "statement":
// "volent-approval/v2", "decider": ..., "public_key": base64, "sig": base64,
// "call_digest": ...}.
nlohmann::json SignApproval(const core::ed25519::SecretKey& key, bool approve, std::string_view call_digest,
                            std::string_view decider);

// Checks a journaled/submitted signature object for `approve` of
// `call_digest` by `decider`: its shape and form (v2; v1 is refused, saying
// why), the decider it names (must be `decider`), its key (when
// `expected_key` is given, the signature's public_key must be that key,
// base64) and the signature itself. Ok, or what is wrong.
core::Status CheckApprovalSignature(const nlohmann::json& signature, bool approve, std::string_view call_digest,
                                       std::string_view decider, std::string_view expected_key = {});

}  // namespace volent::access
