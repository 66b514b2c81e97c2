// Gathering the facts for a verdict: read everything the command line names
// and check it against the receipt.
//
// Every file is read and every check is made even after one has failed, so
// that the verdict is the most serious problem (verdict.h), not the first
// one met. Reading follows the receipt rules: the signature is checked
// before any byte of the payload is interpreted, and a file is compared only
// with a digest that the receipt signed.
//
//   --kernel   sha256 == predicate kernel.sha256   (streamed, any size)
//   --program  sha256 == predicate program.sha256  (the name may differ)
//   --output   sha256 == the `stdout` subject
//   --input N  sha256 == predicate inputs[] entry named N (N must be there)
//   --stdin    sha256 == predicate stdin.sha256
//
// Thread-safe: no state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "run/run_record.h"
#include "verify/file_digest.h"
#include "verify/options.h"
#include "verify/verdict.h"

namespace ampoule::verify {

struct Evidence {
  Facts facts;
  std::vector<std::string> notes;        // explanations for stderr, in order
  std::optional<run::RunRecord> record;  // set once the receipt was accepted
  bool signature_checked = false;
  std::optional<LoadedFile> program;
  std::map<std::string, LoadedFile> inputs;  // by name
  std::optional<LoadedFile> stdin_file;
};

// Reads and checks everything `options` names. In replay mode with no key
// the signature is not checked (a note says so) and the receipt is read for
// its claims only. Never fails: problems become facts and notes.
Evidence Gather(const Options& options);

}  // namespace ampoule::verify
