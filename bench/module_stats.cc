// bench/module_stats: what a module costs the engine before it runs.
//
//   module_stats MODULE.wasm [REPEATS]
//
// Prints, as `key value` lines:
//   compile_ms_median   decode + validate + translate (CompileModule), median of REPEATS (default 5)
//   compile_ms_min
//   module_bytes        size of the binary
//   compiled_heap_bytes heap held by the compiled module (shared by all its instances)
//   instance_heap_bytes heap one instance adds beyond its linear memory
//   linear_memory_bytes the linear memory the instance starts with
//
// Imports are linked to stub host functions (never called), so any WASI
// command module can be measured. Heap figures come from glibc's mallinfo2
// and include allocator overhead; the value and call stacks, reserved on the
// first call, are not part of them. Bench-only: not part of the product.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "ampoule/wasm/runtime.h"

namespace {

using namespace ampoule::wasm;

size_t HeapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;  // small blocks + mmapped blocks
}

HostResult Unused(HostContext&, std::span<const uint64_t>, std::span<uint64_t>) {
  return HostResult::Trap("stub import called");
}

int Fail(const char* what, const std::string& why) {
  fprintf(stderr, "module_stats: %s: %s\n", what, why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fputs("usage: module_stats MODULE.wasm [REPEATS]\n", stderr);
    return 2;
  }
  int repeats = argc > 2 ? std::max(1, atoi(argv[2])) : 5;
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return Fail(argv[1], "cannot read");

  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto compiled = CompileModule(bytes);
    auto t1 = std::chrono::steady_clock::now();
    if (!compiled.ok()) return Fail(argv[1], compiled.message());
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());

  size_t before_compile = HeapInUse();
  auto compiled = CompileModule(bytes);
  if (!compiled.ok()) return Fail(argv[1], compiled.message());
  size_t compiled_heap = HeapInUse() - before_compile;

  Store store;
  std::vector<Extern> imports;
  for (const Import& imp : (*compiled)->module.imports) {
    if (imp.kind != ExternKind::Func) return Fail(argv[1], "only function imports can be stubbed");
    Extern ext;
    ext.func = store.AddHostFunction((*compiled)->module.types[imp.func_type], Unused);
    imports.push_back(ext);
  }
  size_t before_instance = HeapInUse();
  InstantiateResult r = store.Instantiate(*compiled, imports);
  size_t instance_heap = HeapInUse() - before_instance;
  if (r.kind != InstantiateResult::Kind::kOk) {
    return Fail(argv[1], r.kind == InstantiateResult::Kind::kLinkError ? r.message : r.outcome.message);
  }
  size_t linear = 0;
  for (const MemoryInstance* m : r.instance->memories) linear += m->data.size();

  printf("compile_ms_median %.3f\n", ms[ms.size() / 2]);
  printf("compile_ms_min %.3f\n", ms.front());
  printf("module_bytes %zu\n", bytes.size());
  printf("compiled_heap_bytes %zu\n", compiled_heap);
  printf("instance_heap_bytes %zu\n", instance_heap > linear ? instance_heap - linear : 0);
  printf("linear_memory_bytes %zu\n", linear);
  return 0;
}
