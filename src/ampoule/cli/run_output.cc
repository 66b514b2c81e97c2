#include "ampoule/cli/run_output.h"

#include "ampoule/receipt/key_file.h"
#include "ampoule/run/output_files.h"
#include "ampoule/run/receipt_builder.h"
#include "core/file_write.h"
#include "core/json.h"
#include "core/json_strict.h"

namespace ampoule::cli {

core::Result<ReceiptSigner> ReceiptSigner::Load(const std::string& key_path) {
  ReceiptSigner signer;
  if (key_path.empty()) return signer;
  core::Result<core::ed25519::SecretKey> key = receipt::ReadSecretKeyFile(key_path);
  if (!key) return core::Error{"--key: " + key.message()};
  signer.key_.emplace(std::move(*key));
  return signer;
}

void ExplainStop(const run::RunRecord& record, FILE* out) {
  const run::RunOutcome& r = record.result;
  auto u = [](uint64_t v) { return (unsigned long long)v; };
  switch (r.stop) {
    case run::Stop::kExit:
      if (r.status == run::kStatusGuestHigh) {
        fprintf(out, "ampoule run: the guest exited with status %d (reported as %d)\n", r.exit_code,
                r.status);
      }
      break;
    case run::Stop::kTrap:
      fprintf(out, "ampoule run: the guest trapped: %s\n", r.trap.c_str());
      break;
    case run::Stop::kFuel:
      fprintf(out, "ampoule run: the guest ran out of fuel (budget %llu; raise it with --fuel)\n",
              u(record.limits.fuel));
      break;
    case run::Stop::kMemory:
      fprintf(out,
              "ampoule run: the guest failed after reaching the memory cap of %llu bytes "
              "(raise it with --memory)\n",
              u(record.limits.memory_bytes));
      break;
    case run::Stop::kTimeout:
      fprintf(out,
              "ampoule run: stopped by the wall-clock safety net after %g s (--timeout); the run is "
              "recorded as terminated and cannot be replayed\n",
              record.limits.timeout_seconds);
      break;
  }
  for (const auto& [name, d] : {std::pair{"stdout", &record.stdout_digest},
                                std::pair{"stderr", &record.stderr_digest}}) {
    if (d->truncated) {
      fprintf(out, "ampoule run: the guest wrote %llu bytes to %s; only the first %llu were kept\n",
              u(d->total_bytes), name, u(d->bytes));
    }
  }
}

void ExplainOutputFiles(const run::RunRecord& record, const std::string& outputs_dir, FILE* out) {
  size_t n = record.outputs.size();
  if (n != 0 && outputs_dir.empty()) {
    fprintf(out,
            "ampoule run: the guest left %zu file%s in /output (in the record; pass --outputs DIR "
            "to write them)\n",
            n, n == 1 ? "" : "s");
  } else if (n != 0) {
    fprintf(out, "ampoule run: wrote %zu output file%s to %s\n", n, n == 1 ? "" : "s", outputs_dir.c_str());
  }
  if (record.outputs_left_out != 0) {
    fprintf(out,
            "ampoule run: %llu file%s in /output could not leave the run (a name that is not "
            "printable UTF-8, or past the %zu-file limit); the record counts them\n",
            (unsigned long long)record.outputs_left_out, record.outputs_left_out == 1 ? "" : "s",
            run::kMaxOutputFiles);
  }
}

core::Status WriteRunOutputs(const run::ProgramRun& run, const std::string& record_path, bool json,
                       const ReceiptSigner& signer, const std::string& receipt_path) {
  nlohmann::json record = run::RecordToJson(run.record);
  if (!record_path.empty()) {
    CORE_RETURN_IF_ERROR(core::WriteFileAtomically(record_path, core::DumpJson(record, 2) + "\n"));
  }
  if (signer.enabled()) {
    std::string envelope = run::MakeReceipt(run.record, signer.key());
    CORE_RETURN_IF_ERROR(core::WriteFileAtomically(receipt_path, envelope));
  }
  if (json) {
    nlohmann::json out = {{"record", std::move(record)},
                          {"stdout", run.stdout_data},
                          {"stderr", run.stderr_data}};
    std::string text = core::DumpJson(out) + "\n";
    fwrite(text.data(), 1, text.size(), stdout);
    fflush(stdout);
  }
  return core::Status::Ok();
}

}  // namespace ampoule::cli
