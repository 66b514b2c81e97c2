// Replay: run the program of a receipt again on the kernel it names and
// compare the new run record with the signed one.
//
// The run is rebuilt from the predicate alone: runtime, program name, the
// inputs by name (bytes from --input, each checked against its signed
// digest), stdin (from --stdin; none needed when the run had empty stdin),
// seed and limits. The wall-clock safety net is the receipt's (at most
// --max-timeout) unless --timeout is given; it never changes a
// deterministic result. A receipt over the verifier's ceilings (options.h)
// is not run at all.
//
// Everything in the record except the times and the isolation must then be
// equal: output digests and sizes, status, exit code, stop reason, fuel
// used, memory-cap flag, trap message, and the echoed kernel, program,
// inputs, seed and limits. The isolation is how the original host sealed
// the run; the replay runs in this verifier's sandbox (the jail, or none
// with --insecure-no-jail), which need not be the same. A receipt of a terminated run is not re-run (REPLAY N/A).
//
// Replay does not depend on trusting the signer: without a key, a REPLAY OK
// still shows that this program with these inputs on this kernel produces
// exactly the outputs, fuel and status the receipt claims. It says nothing
// about who ran it, when, or whether a key vouched for it.
//
// Thread-safe: each call is independent.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ampoule/run/run_program.h"
#include "ampoule/verify/evidence.h"
#include "ampoule/verify/options.h"

namespace ampoule::verify {

// Runs a spec; run::RunProgram in production, a fake in tests.
using Runner = std::function<core::Result<run::ProgramRun>(const run::RunSpec&)>;

// Builds the spec a replay runs from `evidence` (which must hold a record,
// the program and every input the record names).
run::RunSpec ReplaySpec(const Options& options, const Evidence& evidence);

// Why the record asks more of a replay than `options` allows (fuel used,
// memory cap, output cap), as a short reason with details in `*detail`;
// nullopt if it is within the ceilings.
std::optional<std::string> OverCeiling(const Options& options, const run::RunRecord& record,
                                       std::string* detail);

// The first difference between the signed record and the replayed one
// (times and isolation ignored), as a short reason for "REPLAY FAILED: <reason>", with
// details in `*detail`; nullopt if they are equal.
std::optional<std::string> FirstDifference(const run::RunRecord& signed_record,
                                           const run::RunRecord& replayed, std::string* detail);

// Completes `evidence` (from Gather in replay mode) with the replay: checks
// that the record's inputs and stdin were given, runs `runner` unless a more
// serious fact already decides, and records the comparison.
void Replay(const Options& options, const Runner& runner, Evidence& evidence);

}  // namespace ampoule::verify
