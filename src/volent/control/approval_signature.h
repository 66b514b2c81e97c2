// An approver's own signature over a decision (docs/auditor-guide.md,
// "Checking a signed approval"): Ed25519 over
//
//   "volent-approval/v1\n" DECISION "\n" CALL_DIGEST "\n"
//
// where DECISION is "approved" or "denied" and CALL_DIGEST is
// "sha256:<hex>", the hash of the approval-requested journal entry of the
// pending call (docs/journal.md, "Hash encoding"), which covers the agent,
// the run, the step, the tool and its arguments and the entry's place in
// the chain. An auditor recomputes that hash from the journal, builds the
// same text and checks the signature with the approver's public key,
// without trusting the node. `volent approve` signs; `volent approve
// --verify` checks.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ampoule/receipt/ed25519.h"
#include "core/result.h"

namespace volent::control {

inline constexpr std::string_view kApprovalSignatureDomain = "volent-approval/v1";

// The bytes signed for `approve` of the call with `call_digest`.
std::string ApprovalMessage(bool approve, std::string_view call_digest);

// The journaled form of a signature: {"scheme": "ed25519", "public_key":
// base64, "sig": base64, "call_digest": ...}.
nlohmann::json SignApproval(const ampoule::receipt::SecretKey& key, bool approve, std::string_view call_digest);

// Checks a journaled/submitted signature object for `approve` of
// `call_digest`: its shape, its key (when `expected_key` is given, the
// signature's public_key must be that key, base64) and the signature
// itself. Ok, or what is wrong.
ampoule::Status CheckApprovalSignature(const nlohmann::json& signature, bool approve, std::string_view call_digest,
                                       std::string_view expected_key = {});

}  // namespace volent::control
