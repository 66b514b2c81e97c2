// Making a receipt from a run record: the signing side of docs/receipt-spec.md.
// It lives with the run, not the verifier: `ampoule run` and the MCP run
// tools sign without linking the verifier, and the verifier never signs.
//
// A receipt is a DSSE envelope (docs/receipt-spec.md section 1) around an
// in-toto Statement v1 whose subjects are the run's two output streams,
// `stdout` and `stderr`, with the sha256 of their kept bytes, then each
// output file as `output/NAME`, and whose predicate is the run record itself
// (RecordToJson, predicate type RunPredicateType(record.predicate_version)).
//
// The statement is serialised once, compactly with sorted keys, and those
// exact bytes are signed; verifiers read the bytes, never a re-serialisation.
//
// Thread-safe: no state.
#pragma once

#include <string>

#include "ampoule/receipt/statement.h"
#include "ampoule/run/run_record.h"
#include "core/ed25519.h"

namespace ampoule::run {

// Subjects of output files are named this prefix + the file's name.
inline constexpr std::string_view kOutputSubjectPrefix = "output/";

// The statement a receipt carries for `record`: subjects `stdout`, `stderr`
// and `output/NAME` for each output file (in that order) with the record's
// digests, the record version's predicate type, predicate
// RecordToJson(record).
// REQUIRES: the record's output digests are 64 lowercase hex digits and,
// for version 4, its isolation is set (as RunProgram makes them); otherwise
// the receipt will not verify.
receipt::Statement StatementForRecord(const RunRecord& record);

// The receipt file's text for `record`, signed by `key`: the DSSE envelope
// JSON (two-space indent, trailing newline) with one signature whose keyid
// is key.public_key().KeyId(). Write it as-is; any change to the signed
// content makes it fail verification.
std::string MakeReceipt(const RunRecord& record, const core::ed25519::SecretKey& key);

}  // namespace ampoule::run
