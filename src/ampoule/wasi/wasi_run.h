// Running a WASI module from start to finish, deterministically.
//
// Two kinds of module run here:
//   - a command exports `_start`; the run calls it.
//   - a reactor (no `_start`) exports `ampoule_main() -> i32`; the run calls
//     `_initialize` (if exported), `ampoule_init() -> i32` (if exported; a
//     non-zero result ends the run as if the guest had exited with it), then
//     `ampoule_main`, whose result is the exit status. proc_exit works
//     anywhere. The runtimes ship this way so that a snapshot (snapshot.h)
//     can be taken between ampoule_init and ampoule_main.
// Either way a status of 0 is reported as "returned" and anything else as
// an exit, as wasi-libc's _start does with main's result.
//
// A RunRequest fully defines a run: the same module and the same request
// give the same RunResult (output bytes, exit code, stop reason, fuel) on
// every host. Nothing here reads files, clocks or the host's randomness;
// whoever builds the request (the CLI) does the I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ampoule/wasi/http_capability.h"
#include "ampoule/wasi/mailbox.h"
#include "ampoule/wasi/output_capture.h"
#include "ampoule/wasi/wasi_context.h"
#include "ampoule/wasi/wasi_env.h"
#include "ampoule/wasi/wasi_host.h"
#include "ampoule/wasm/runtime.h"
#include "core/result.h"

namespace ampoule::wasi {

struct RunRequest {
  std::vector<std::string> args;  // argv, including argv[0] (the program name)
  std::vector<std::string> env;   // "KEY=VALUE"
  std::vector<uint8_t> stdin_bytes;
  Mailbox mailbox;                      // preopened directories (the guest changes a copy)
  FsLimits fs_limits;                   // caps on the guest's filesystem
  // The guest path of a preopen whose regular files, at the end of the run,
  // are the run's output files (RunResult::files). Empty: none.
  std::string output_dir;
  uint64_t seed = 0;                    // random_get stream
  uint64_t epoch_ns = kDefaultEpochNs;  // realtime clock at fuel 0
  uint64_t fuel = UINT64_MAX;           // budget; running out stops the run (stop reason "fuel")
  wasm::StoreLimits limits;             // memory cap, table cap, call depth, value stack
  uint64_t stdout_cap = kDefaultOutputCap;
  uint64_t stderr_cap = kDefaultOutputCap;
  // The tool capability's recorded HTTP exchanges (http_capability.h).
  HttpCapabilityConfig http;
  // Optional live views of kept output (they do not affect the result).
  OutputSink stdout_sink;
  OutputSink stderr_sink;
};

// A regular file the guest left in the request's output_dir.
struct OutputFile {
  std::string name;  // relative to output_dir, '/'-separated ("report.json", "a/b.csv")
  std::vector<uint8_t> bytes;
};

struct RunResult {
  wasm::StopReason stop = wasm::StopReason::kReturned;
  wasm::TrapKind trap = wasm::TrapKind::kNone;  // kTrap only
  std::string trap_message;                     // kTrap only
  // proc_exit's argument or a reactor's non-zero status for kExit, 0 otherwise.
  int32_t exit_code = 0;
  uint64_t fuel_used = 0;
  std::string stdout_data;  // at most stdout_cap bytes
  std::string stderr_data;
  uint64_t stdout_total_bytes = 0;  // everything the guest wrote, kept or not
  uint64_t stderr_total_bytes = 0;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  bool memory_cap_hit = false;  // a memory.grow was refused by limits.max_memory_bytes
  // The regular files under output_dir, sorted by name (byte order);
  // symbolic links and empty folders are not files. Their names are the
  // guest's bytes, unchecked: what may leave the run is the caller's rule.
  std::vector<OutputFile> files;
  // The HTTP request the run stopped at, waiting for the host's answer
  // (only when request.http.ask_host; the stop is then a trap).
  std::string http_pending;
};

// Links `module`'s imports to the WASI host, instantiates it, and calls its
// `_start` export, or runs it as a reactor (above); fuel counts all of it.
// Returns the result of the run whatever way the guest stopped (returned,
// proc_exit, trap, out of fuel), including a trap or exit in the module's
// start function. Errors are for runs that could not start: an invalid
// request, an import the host does not provide, an incompatible import type,
// neither `_start` nor `ampoule_main`, an entry point of the wrong type.
core::Result<RunResult> RunWasiCommand(std::shared_ptr<const wasm::CompiledModule> module,
                                 const RunRequest& request);

// Compiles `wasm_bytes` (errors: malformed or invalid module), then as above.
core::Result<RunResult> RunWasiCommand(std::span<const uint8_t> wasm_bytes, const RunRequest& request);

// One run's moving parts: the WASI context, the store and the instance. The
// building block of RunWasiCommand and of snapshots (snapshot.h), which
// drive the exports themselves. Not copyable or movable (the host functions
// point into it).
class RunSession {
 public:
  // Validates the request, links the module's imports to the WASI host,
  // sets the fuel budget to request.fuel and instantiates. `clock_base`
  // gives the clock's starting point (its seed and epoch come from the
  // request). Errors: as for RunWasiCommand. A start function that stopped
  // the run is not an error: see instantiate_outcome().
  // REQUIRES: `request` (its stdin and mailbox) outlives the session.
  static core::Result<std::unique_ptr<RunSession>> Start(
      std::shared_ptr<const wasm::CompiledModule> module, const RunRequest& request,
      const DeterministicEnvironmentOptions& clock_base = {});

  // Null if the start function (or a segment) stopped the run.
  wasm::Instance* instance() const { return instance_; }
  const wasm::Outcome& instantiate_outcome() const { return instantiate_outcome_; }
  wasm::Store& store() { return store_; }
  WasiContext& context() { return ctx_; }
  DeterministicEnvironment& environment() { return env_; }

  // The exported function `name` of type `want`, null if there is no such
  // export, an error if it has another type or is not a function.
  core::Result<wasm::FunctionInstance*> FindFunction(std::string_view name,
                                               const wasm::FuncType& want) const;

  // Calls a reactor export () -> i32 and turns its result into a run
  // outcome: 0 is kReturned, anything else kExit with that status.
  wasm::Outcome CallStatusFunction(wasm::FunctionInstance* func);

  // Fills `result` with `outcome`, the fuel used, the memory cap flag, the
  // captured output and the output files.
  void Finish(const wasm::Outcome& outcome, RunResult& result);

  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

 private:
  RunSession(const RunRequest& request, const DeterministicEnvironmentOptions& env_options,
             const WasiConfig& config);

  DeterministicEnvironment env_;
  WasiContext ctx_;
  wasm::Store store_;
  WasiHost host_;
  HttpCapability http_;
  wasm::Instance* instance_ = nullptr;
  wasm::Outcome instantiate_outcome_;
  std::string output_dir_;
};

// The reactor entry points' types: () -> () and () -> i32.
const wasm::FuncType& ReactorVoidType();
const wasm::FuncType& ReactorStatusType();

// "exit 3", "returned", "trap: unreachable", "out of fuel": for messages.
std::string DescribeStop(const RunResult& result);

}  // namespace ampoule::wasi
