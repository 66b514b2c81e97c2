// Running a WASI command module from start to finish, deterministically.
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

#include "util/result.h"
#include "wasi/mailbox.h"
#include "wasi/output_capture.h"
#include "wasi/wasi_context.h"
#include "wasi/wasi_env.h"
#include "wasm/runtime.h"

namespace ampoule::wasi {

struct RunRequest {
  std::vector<std::string> args;  // argv, including argv[0] (the program name)
  std::vector<std::string> env;   // "KEY=VALUE"
  std::vector<uint8_t> stdin_bytes;
  Mailbox mailbox;                      // preopened read-only directories
  uint64_t seed = 0;                    // random_get stream
  uint64_t epoch_ns = kDefaultEpochNs;  // realtime clock at fuel 0
  uint64_t fuel = UINT64_MAX;           // budget; running out stops the run (stop reason "fuel")
  wasm::StoreLimits limits;             // memory cap, table cap, call depth, value stack
  uint64_t stdout_cap = kDefaultOutputCap;
  uint64_t stderr_cap = kDefaultOutputCap;
  // Optional live views of kept output (they do not affect the result).
  OutputSink stdout_sink;
  OutputSink stderr_sink;
};

struct RunResult {
  wasm::StopReason stop = wasm::StopReason::kReturned;
  wasm::TrapKind trap = wasm::TrapKind::kNone;  // kTrap only
  std::string trap_message;                     // kTrap only
  // 0 when _start returned, proc_exit's argument for kExit, 0 otherwise.
  int32_t exit_code = 0;
  uint64_t fuel_used = 0;
  std::string stdout_data;  // at most stdout_cap bytes
  std::string stderr_data;
  uint64_t stdout_total_bytes = 0;  // everything the guest wrote, kept or not
  uint64_t stderr_total_bytes = 0;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  bool memory_cap_hit = false;  // a memory.grow was refused by limits.max_memory_bytes
};

// Links `module`'s imports to the WASI host, instantiates it, and calls its
// `_start` export. Returns the result of the run whatever way the guest
// stopped (returned, proc_exit, trap, out of fuel), including a trap or exit
// in the module's start function. Errors are for runs that could not start:
// an invalid request, an import the host does not provide, an incompatible
// import type, no `_start` function.
Result<RunResult> RunWasiCommand(std::shared_ptr<const wasm::CompiledModule> module,
                                 const RunRequest& request);

// Compiles `wasm_bytes` (errors: malformed or invalid module), then as above.
Result<RunResult> RunWasiCommand(std::span<const uint8_t> wasm_bytes, const RunRequest& request);

// "exit 3", "returned", "trap: unreachable", "out of fuel": for messages.
std::string DescribeStop(const RunResult& result);

}  // namespace ampoule::wasi
