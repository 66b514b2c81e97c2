// Checking a node's attestation report off the node against an auditor's
// policy (`volent attest --verify`, docs/attestation.md, "Verifying").
//
// Every claim is checked, even after one has failed, and each failure names
// its claim ("signature", "nonce", "tpm.quote", "pcrs.7", "egress.allowlist",
// ...), so the auditor sees everything that is wrong at once. Nothing in the
// payload is read before the envelope's signature has verified under one of
// the policy's signers. The report is VERIFIED only when no claim failed.
//
// What is proved and what is only stated: with a TPM, the quote proves that
// a key with a restricted signing key's attributes signed these PCR values
// for this nonce, and the node's PCR log, replayed to the quoted value,
// binds every start of the node in this boot (its binary, allowlist, trust
// configuration and kernel, each event bound to its kind) to that quote.
// The log must read as whole starts (node_pcr.h SplitStarts), the report's
// values must be its last start's, and every policy claim about what the
// node runs must hold of every start: a wider allowlist measured earlier
// in the boot fails it even when the last one is narrow.
// Without credential activation (tpm.h) nothing here proves the key lives
// in a TPM; without a TPM every claim is only the node's signed statement.
//
// Thread-safe: no state, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "volent/attest/policy.h"

namespace volent::attest {

struct FailedClaim {
  std::string claim;  // "signature", "nonce", "tpm.quote", "pcrs.7", ...
  std::string why;    // for a person
};

struct Verdict {
  std::vector<FailedClaim> failed;
  std::vector<std::string> checked;  // the claims the policy asked for, in order
  std::vector<std::string> notes;    // what a VERIFIED does not prove (a self-asserted fact), for a person
  bool verified() const { return failed.empty(); }
};

// Checks `envelope` (the report's JSON text) under `policy`. `nonce_hex` is
// the nonce the verifier sent (overrides the policy's; "" uses it; with
// neither, the claim "nonce" fails: a report without a fresh nonce could be
// a replay). `now_unix` is the verifier's clock, for max_age_seconds.
Verdict VerifyReport(std::string_view envelope, const Policy& policy, const std::string& nonce_hex,
                     int64_t now_unix);

}  // namespace volent::attest
