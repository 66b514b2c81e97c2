// Runtime snapshots for a kernel being packed (see kernel_pack.h).
//
// Each runtime that is a reactor (exports `ampoule_init`) is started once
// under RuntimeInitRequest, the very request the engine rebuilds for every
// run, and captured with wasi::MakeSnapshot. A runtime built as a plain
// command (no `ampoule_init`) gets no snapshot; the manifest's note says so
// and runs of it start from scratch.
#include <string>

#include "ampoule/kernel/kernel_pack.h"
#include "ampoule/kernel/runtime_init.h"
#include "ampoule/wasi/snapshot.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::kernel {
namespace {

bool ExportsFunction(const wasm::Module& module, std::string_view name) {
  for (const wasm::Export& e : module.exports) {
    if (e.name == name && e.kind == wasm::ExternKind::Func) return true;
  }
  return false;
}

// Makes the snapshot of one runtime; returns the note for the manifest.
core::Result<std::string> SnapshotRuntime(GuestRuntime runtime, KernelBuild* build) {
  std::string name(RuntimeName(runtime));
  auto entry = build->runtime_entries.find(std::string(RuntimeModuleEntry(runtime)));
  if (entry == build->runtime_entries.end()) return name + ": no module";
  auto module = wasm::CompileModule(entry->second);
  if (!module.ok()) return core::Error{entry->first + ": " + module.message()};
  if (!ExportsFunction((*module)->module, "ampoule_init")) return name + ": not a reactor, no snapshot";
  EntryLookup lookup = [build](std::string_view wanted) -> core::Result<std::span<const uint8_t>> {
    auto it = build->runtime_entries.find(std::string(wanted));
    if (it == build->runtime_entries.end()) return core::Error{"no entry '" + std::string(wanted) + "'"};
    return std::span<const uint8_t>(it->second);
  };
  auto request = RuntimeInitRequest(runtime, lookup);
  if (!request.ok()) return request.error();
  auto snapshot = wasi::MakeSnapshot(*module, *request);
  if (!snapshot.ok()) return core::Error{name + " start-up for the snapshot failed: " + snapshot.message()};
  build->runtime_entries[std::string(RuntimeSnapshotEntry(runtime))] = std::move(*snapshot);
  return name + ": snapshot after ampoule_init";
}

}  // namespace

core::Status AddRuntimeSnapshots(KernelBuild* build) {
  std::string note;
  bool any = false;
  for (GuestRuntime runtime : {GuestRuntime::kPython, GuestRuntime::kJs}) {
    auto made = SnapshotRuntime(runtime, build);
    if (!made.ok()) return made.error();
    note += (note.empty() ? "" : "; ") + *made;
    any = any || build->runtime_entries.count(std::string(RuntimeSnapshotEntry(runtime))) > 0;
  }
  build->snapshots = any;
  build->snapshots_note = note;
  return core::Status::Ok();
}

}  // namespace ampoule::kernel
