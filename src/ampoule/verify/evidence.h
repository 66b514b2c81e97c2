// Gathering the facts for a verdict, in two steps that never mix:
//
//   ReadSnapshot  reads every file the options name, once, under its cap
//                 (the keys, the receipt, the kernel's digest, the program,
//                 the inputs, the outputs, stdin);
//   Gather        checks those bytes against the receipt, with no I/O.
//
// A caller that checks more than once (the trust gate verifies, replays and
// then compares fields) reads one snapshot and hands it to every step, so
// that each step judges the same bytes and nothing a file turns into
// between two reads (a rename, a FIFO that serves other bytes the second
// time) can reach a decision.
//
// Every file is read and every check is made even after one has failed, so
// that the verdict is the most serious problem (verdict.h), not the first
// one met. Reading follows the receipt rules: the signature is checked
// before any byte of the payload is interpreted, and a file is compared only
// with a digest that the receipt signed.
//
//   --kernel   sha256 == predicate kernel.sha256   (streamed, regular file)
//   --program  sha256 == predicate program.sha256  (the name may differ)
//   --output   sha256 == the `stdout` subject
//   --output-file N  sha256 == the `output/N` subject (N must be there)
//   --input N  sha256 == predicate inputs[] entry named N (N must be there)
//   --stdin    sha256 == predicate stdin.sha256
//
// Once the receipt is accepted, a note says its isolation ("isolation:
// VALUE (...)", docs/cli.md); it is not a fact for the verdict.
//
// Thread-safe: no state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ampoule/run/run_record.h"
#include "ampoule/verify/file_digest.h"
#include "ampoule/verify/options.h"
#include "ampoule/verify/verdict.h"
#include "core/ed25519.h"

namespace ampoule::verify {

// The bytes of everything a check reads, as they were read once. Problems
// met while reading are facts and notes already.
struct Snapshot {
  Facts facts;
  std::vector<std::string> notes;
  std::vector<core::ed25519::PublicKey> keys;  // every key that loaded
  std::optional<LoadedFile> receipt;
  std::optional<std::string> kernel_sha256;
  std::optional<std::string> kernel_problem;  // why the kernel could not be read (and no sha256)
  std::optional<LoadedFile> program;
  std::map<std::string, LoadedFile> inputs;         // by name
  std::vector<std::optional<LoadedFile>> outputs;   // one per options.outputs, in order
  std::map<std::string, LoadedFile> output_files;   // by name, for --output-file
  std::optional<LoadedFile> stdin_file;
};

// Reads everything `options` names. Never fails: problems become facts.
Snapshot ReadSnapshot(const Options& options);

struct Evidence {
  Facts facts;
  std::vector<std::string> notes;        // explanations for stderr, in order
  std::optional<run::RunRecord> record;  // set once the receipt was accepted
  bool signature_checked = false;
  const Snapshot* files = nullptr;       // the bytes judged; outlives the Evidence
};

// Checks `files` (read by ReadSnapshot with the same `options`). In replay
// mode with no key the signature is not checked (a note says so) and the
// receipt is read for its claims only. Never fails: problems become facts
// and notes.
Evidence Gather(const Options& options, const Snapshot& files);

}  // namespace ampoule::verify
