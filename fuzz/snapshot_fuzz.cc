// Fuzz target for snapshot bytes, which a run reads from the kernel file.
//
// Each input is parsed. A snapshot that parses must serialise back to the
// same bytes (the format has one encoding per state), and is then restored
// into the tiny reactor (snapshot_tiny_module.h) and run with a small fuel
// budget, with the module digest and the request made to match so that the
// restore itself is exercised. Any crash, sanitizer report or hang is a bug:
// bad snapshots must only ever give errors, and a restored guest must only
// ever return, trap or run out of fuel or memory.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>

#include "ampoule/wasi/snapshot.h"
#include "ampoule/wasi/snapshot_format.h"
#include "ampoule/wasi/snapshot_tiny_module.h"

namespace {

using namespace ampoule;

std::shared_ptr<const wasm::CompiledModule> TinyReactor() {
  static std::shared_ptr<const wasm::CompiledModule> module = [] {
    core::Result<std::shared_ptr<const wasm::CompiledModule>> m =
        wasm::CompileModule(wasi::kSnapshotTinyReactor);
    if (!m) abort();
    return *m;
  }();
  return module;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  core::Result<wasi::SnapshotImage> image = wasi::ParseSnapshot(bytes);
  if (!image) return 0;
  std::vector<uint8_t> again = wasi::SerializeSnapshot(*image);
  if (again.size() != size || !std::equal(again.begin(), again.end(), data)) abort();

  wasi::RunRequest request;
  request.env = image->env;
  for (const std::string& path : image->preopens) {
    if (!request.mailbox.AddPreopen(path).ok()) return 0;
  }
  request.fuel = 100'000;
  request.limits.max_memory_bytes = 16u << 20;
  request.limits.max_table_elements = 10'000;
  request.limits.max_call_depth = 1'000;
  request.limits.max_value_stack = 64 * 1024;
  (void)wasi::RunFromSnapshot(TinyReactor(), image->module_sha256, bytes, request);
  return 0;
}
