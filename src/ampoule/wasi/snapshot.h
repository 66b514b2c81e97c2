// Pre-initialised runtimes: run a reactor's start-up once, keep the result,
// and start every run from it.
//
// A reactor (wasi_run.h) does its program-independent start-up in
// `ampoule_init`. MakeSnapshot runs `_initialize` and `ampoule_init` and
// records everything the guest can observe of the instance afterwards:
// each memory's bytes (only the non-zero 4 KiB blocks, as runs, so a large
// mostly-empty heap stays small), the mutable globals, the tables (as
// function indices), which element and data segments are dropped, and the
// virtual clock (fuel used and time slept). RunFromSnapshot instantiates the
// module afresh, puts that state back and calls only `ampoule_main`.
//
// Determinism: the same module and init request give the same snapshot
// bytes; the same snapshot and run request give the same run. The run is
// the run of ampoule_main that a straight run (RunWasiCommand) of the same
// reactor would make after its start-up, with these differences, which are
// part of the definition of a snapshot run:
//   - fuel_used counts ampoule_main only, and the budget applies to it only;
//   - random_get starts a fresh stream from the run request's seed;
//   - the clocks continue from the start-up's (DeterministicEnvironment's
//     base), so they read what a straight run's would.
//
// What the guest's start-up may have cached must not change between the
// two requests: the environment and the preopened guest paths (in order)
// must be the same, which RunFromSnapshot checks. The contents of the
// preopened directories, argv, stdin, seed, fuel and limits may differ.
// MakeSnapshot refuses a start-up that leaves the WASI state other than it
// found it (a file or directory left open, stdin read, output written), a
// module with a start function (it would run again at restore), and a
// start-up that did not return 0; the error says which.
//
// The snapshot is bound to the module by the SHA-256 of its wasm bytes and
// to kSnapshotFormatVersion (snapshot_format.h has the layout).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ampoule/wasi/snapshot_format.h"
#include "ampoule/wasi/wasi_run.h"
#include "ampoule/wasm/runtime.h"
#include "core/result.h"

namespace ampoule::wasi {

// SHA-256 of the module's wasm bytes. Costs about 10 ms per MB; a caller
// that already knows the digest (a kernel's manifest lists it) passes it to
// RunFromSnapshot instead.
Sha256Digest ModuleSha256(const wasm::CompiledModule& module);

// Runs the start-up under `init_request` and returns the snapshot's bytes.
// init_request.fuel bounds the start-up; its args, stdin and seed are what
// the start-up sees.
core::Result<std::vector<uint8_t>> MakeSnapshot(std::shared_ptr<const wasm::CompiledModule> module,
                                          const RunRequest& init_request);

// Restores `snapshot` into a fresh instance of `module` and calls
// `ampoule_main` under `request`. Errors (the run did not start): a
// malformed, truncated or foreign snapshot, one made for another module or
// with another format version, an environment or preopen list that differs
// from the snapshot's, a memory cap below the snapshot's memory size, and
// the errors of RunWasiCommand.
core::Result<RunResult> RunFromSnapshot(std::shared_ptr<const wasm::CompiledModule> module,
                                  std::span<const uint8_t> snapshot, const RunRequest& request);

// As above, with the module's SHA-256 given by a caller who knows it is the
// digest of module->module.bytes; saves hashing the module on every run.
core::Result<RunResult> RunFromSnapshot(std::shared_ptr<const wasm::CompiledModule> module,
                                  const Sha256Digest& module_sha256,
                                  std::span<const uint8_t> snapshot, const RunRequest& request);

}  // namespace ampoule::wasi
