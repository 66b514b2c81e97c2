// Reading a receipt of a run: from envelope text to the signed run record.
//
// On top of receipt::VerifyReceipt (signature first, then the statement),
// a receipt of a run must have predicate type run::kRunPredicateType (or
// that of version 3 or 2), a predicate that reads as a run record of that
// version (run::RecordFromJson: every field present with its type, version
// 4's isolation one of its three names exactly; unknown fields ignored),
// and subjects named
// `stdout` and `stderr` whose sha256 equal the record's output digests. A
// signed receipt that breaks any of these is not a valid receipt (FAILED):
// its signer vouched for something inconsistent.
//
// Thread-safe: no state.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ampoule/run/run_record.h"
#include "core/ed25519.h"
#include "core/result.h"

namespace ampoule::verify {

struct RunReceipt {
  run::RunRecord record;
  std::optional<core::ed25519::PublicKey> signer;  // unset when the signature was not checked
  size_t signature_index = 0;
};

// Verifies `envelope_json` against `trusted` (see receipt/verify.h) and reads
// the run record from the signed statement. Returns an error saying which
// step failed: any error means the receipt must not be trusted.
// REQUIRES: !trusted.empty() (with no keys every receipt fails).
core::Result<RunReceipt> ReadSignedRunReceipt(std::string_view envelope_json,
                                        std::span<const core::ed25519::PublicKey> trusted);

// As ReadSignedRunReceipt without checking any signature: for a replay by
// someone who does not trust the signer, where the re-run is the check.
// The result says only what the receipt claims.
core::Result<RunReceipt> ReadUnsignedRunReceipt(std::string_view envelope_json);

}  // namespace ampoule::verify
