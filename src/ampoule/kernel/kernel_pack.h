// Assembling a kernel from a build: the engine ELF, the guest runtimes that
// scripts/build-runtimes.sh made, and (optionally) runtime snapshots.
//
// The runtimes folder is what `build-runtimes.sh --out DIR` writes:
//   DIR/python.wasm, DIR/lib/python311.zip, DIR/js.wasm, DIR/manifest.json
// Each file must have the SHA-256 that DIR/manifest.json records for it, so
// a kernel never mixes outputs of two runtime builds. The files become the
// entries python/python.wasm, python/python311.zip and js/js.wasm
// (entry_names.h); the runtimes manifest's key, inputs (source package and
// toolchain versions, flags, file hashes) and build facts go into the
// kernel manifest.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ampoule::kernel {

struct KernelBuild {
  std::vector<uint8_t> engine;
  std::map<std::string, std::string> engine_build;  // facts: compiler, libc, flags, ...
  std::map<std::string, std::vector<uint8_t>> runtime_entries;  // entry name -> bytes
  nlohmann::json runtimes_manifest = nlohmann::json::object();
  bool snapshots = false;
  std::string snapshots_note;  // why there are none, or how they were made
};

// Reads the engine at `engine_path` and the runtimes folder `runtimes_dir`
// (layout above). Errors: a missing or unreadable file, an unusable
// runtimes manifest, a file whose SHA-256 differs from that manifest.
core::Result<KernelBuild> ReadKernelBuild(const std::string& engine_path, const std::string& runtimes_dir);

// The kernel file for `build`: its entries plus a manifest.json describing
// them (kernel_manifest.h). Deterministic: the same build gives the same
// bytes.
core::Result<std::vector<uint8_t>> AssembleKernel(const KernelBuild& build);

// Adds python/snapshot and js/snapshot to `build` by starting each runtime
// that is a reactor (exports `ampoule_init`) with RuntimeInitRequest and
// capturing it after `ampoule_init` (wasi::MakeSnapshot). A runtime built as
// a plain command gets no snapshot; build->snapshots_note says which
// runtimes have one. Deterministic: the same build gives the same snapshot
// bytes. Errors: a module does not compile, or a start-up failed or left
// state a snapshot cannot hold (the message says which runtime and why).
core::Status AddRuntimeSnapshots(KernelBuild* build);

}  // namespace ampoule::kernel
