// What `ampoule run` leaves behind after a run: the explanation on stderr,
// the --record file, the --json object, and the signed receipt.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "ampoule/run/run_program.h"
#include "core/ed25519.h"
#include "core/result.h"

namespace ampoule::cli {

// The signing key of a run, loaded before the run starts so that a bad key
// fails fast. Empty when no --key was given.
class ReceiptSigner {
 public:
  static core::Result<ReceiptSigner> Load(const std::string& key_path);
  bool enabled() const { return key_.has_value(); }
  const core::ed25519::SecretKey& key() const { return *key_; }

 private:
  std::optional<core::ed25519::SecretKey> key_;
};

// One line on `out` for a run that did not end with the guest's own exit
// (trap, fuel, memory, safety net) or whose output was cut at the cap.
void ExplainStop(const run::RunRecord& record, FILE* out);

// One line on `out` about the run's output files: where they were written,
// that they were not (no --outputs), and how many were left out. Nothing
// when there were none.
void ExplainOutputFiles(const run::RunRecord& record, const std::string& outputs_dir, FILE* out);

// Writes --record (if `record_path` is set), the --json object on stdout
// (if `json`), and the receipt (if `signer` is enabled). Files are written
// whole or not at all (a temporary file renamed into place).
core::Status WriteRunOutputs(const run::ProgramRun& run, const std::string& record_path, bool json,
                       const ReceiptSigner& signer, const std::string& receipt_path);


}  // namespace ampoule::cli
