// Running one program on a kernel, sealed: the host side of `ampoule run`.
//
// RunProgram starts the kernel's own engine in a fresh jail (src/ampoule/sandbox),
// hands it the request over a pipe, passes the guest's stdout and stderr
// through as they arrive, stops it at the wall-clock deadline, and returns
// the run record with the captured output. The record's digests are
// computed here, on the host, from the bytes the engine delivered, and its
// isolation says which of the two the host did: the jail (kJail) or, with
// insecure_no_jail, none (kNone).
//
// The same spec on the same kernel gives the same record (except the times),
// whether it runs now or in a replay years later: that is what replay checks.
//
// Thread-safe: each call is independent (one child process per call).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/run/run_record.h"
#include "ampoule/wasi/vfs.h"
#include "core/result.h"

namespace ampoule::run {

struct ProgramInput {
  std::string name;  // file name under /input (no '/')
  std::vector<uint8_t> bytes;
};

// Defaults for typical agent scripts (docs/cli.md).
inline constexpr uint64_t kDefaultFuel = 20'000'000'000;           // ~10-20 s of CPU
inline constexpr uint64_t kDefaultMemoryBytes = uint64_t(512) << 20;
inline constexpr double kDefaultTimeoutSeconds = 60;
inline constexpr uint64_t kDefaultOutputCapBytes = uint64_t(16) << 20;

struct RunSpec {
  std::string kernel_path;
  std::string runtime;  // "python", "js" or "wasm"; see RuntimeForProgram
  std::string program_name;
  std::vector<uint8_t> program;
  std::vector<ProgramInput> inputs;
  std::vector<uint8_t> stdin_bytes;
  uint64_t seed = 0;
  RunLimits limits{kDefaultFuel,           kDefaultMemoryBytes,       kDefaultTimeoutSeconds,
                   kDefaultOutputCapBytes, wasi::kDefaultFsMaxBytes,  wasi::kDefaultFsMaxNodes,
                   wasi::kDefaultFsMaxDepth};
  // Run without the jail; the record then says isolation "none".
  bool insecure_no_jail = false;
  // Stop the run at an HTTP request of the tool capability that the input
  // named wasi::kHttpExchangesInput does not answer, and return it in
  // ProgramRun::http_pending (wasi/http_capability.h; Volent's sealed tool
  // calls). Off: such a request is answered {"error":"unavailable"}.
  bool http_ask_host = false;
  // Keep the output files' bytes (ProgramRun::output_files), at most the
  // filesystem cap in all. Off: the host hashes them as they arrive from
  // the engine and holds none of them; the record names them either way.
  bool keep_output_files = false;
  // Optional live views of the guest's output as it arrives.
  std::function<void(std::string_view)> on_stdout;
  std::function<void(std::string_view)> on_stderr;
};

struct OutputFileBytes {
  std::string name;  // as in record.outputs
  std::string bytes;
};

struct ProgramRun {
  RunRecord record;
  std::string stdout_data;  // the kept bytes (at most limits.output_cap_bytes)
  std::string stderr_data;
  // With spec.keep_output_files: in record.outputs' order, with their
  // bytes; empty without.
  std::vector<OutputFileBytes> output_files;
  // With spec.http_ask_host: the request (canonical JSON) the run stopped
  // at, a trap in the record; "" when the run did not stop for one.
  std::string http_pending;
};

// "python" for .py, "js" for .js/.mjs, "wasm" for .wasm; an error naming the
// extension otherwise.
core::Result<std::string> RuntimeForProgram(std::string_view program_name);

// Runs `spec`. Errors are for runs that could not start (unreadable or
// invalid kernel, jail unavailable, bad limits, an input name that is not a
// plain file name); every run that started ends with a record, however the
// guest stopped (including the safety net: record.result.terminated).
core::Result<ProgramRun> RunProgram(const RunSpec& spec);

}  // namespace ampoule::run
