// Fuzz target for the engine's untrusted entry point: a module's bytes.
//
// Each input is compiled (decode, validate, translate); a module that
// compiles is instantiated with stub imports, and every exported function is
// called with zero arguments. Limits are small so that one input costs
// milliseconds and a few megabytes: any crash, sanitizer report, hang or
// runaway allocation is a bug in the engine, since a valid module must only
// ever return, trap, or run out of fuel or memory.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ampoule/wasm/runtime.h"

namespace {

using namespace ampoule::wasm;

constexpr uint64_t kFuelPerCall = 100'000;
constexpr StoreLimits kLimits{
    .max_memory_bytes = 16u << 20,
    .max_table_elements = 10'000,
    .max_call_depth = 1'000,
    .max_value_stack = 64 * 1024,
};

// A host function that returns zeros of its result types. Imports are
// satisfied with it so that modules with imports are exercised too.
HostResult ReturnZeros(HostContext&, std::span<const uint64_t>, std::span<uint64_t> results) {
  for (uint64_t& r : results) r = 0;
  return HostResult::Ok();
}

// Makes one stub per import. Returns false when an import asks for more
// than the limits allow (the module is then skipped, not a finding).
bool MakeImports(Store& store, const Module& module, std::vector<Extern>& out) {
  for (const Import& imp : module.imports) {
    Extern ext;
    ext.kind = imp.kind;
    switch (imp.kind) {
      case ExternKind::Func:
        ext.func = store.AddHostFunction(module.types[imp.func_type], ReturnZeros);
        break;
      case ExternKind::Table:
        if (imp.table.limits.min > kLimits.max_table_elements) return false;
        ext.table = store.AddTable(imp.table, kNullRef);
        break;
      case ExternKind::Memory:
        if (uint64_t(imp.memory.limits.min) * kPageSize > kLimits.max_memory_bytes) return false;
        ext.memory = store.AddMemory(imp.memory);
        break;
      case ExternKind::Global:
        ext.global = store.AddGlobal(imp.global, Value::Default(imp.global.type));
        break;
    }
    out.push_back(ext);
  }
  return true;
}

void InvokeExports(Store& store, const Instance& instance) {
  for (const Export& e : instance.module().exports) {
    if (e.kind != ExternKind::Func) continue;
    FunctionInstance* f = instance.funcs[e.index];
    std::vector<Value> args;
    for (ValType t : f->type->params) args.push_back(Value::Default(t));
    store.set_fuel(kFuelPerCall);
    Outcome o = store.Invoke(f, args);
    // Results must match the declared types; anything else is an engine bug.
    if (o.stop != StopReason::kReturned) continue;
    if (o.results.size() != f->type->results.size()) __builtin_trap();
    for (size_t i = 0; i < o.results.size(); ++i) {
      if (o.results[i].type != f->type->results[i]) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto compiled = CompileModule(std::span<const uint8_t>(data, size));
  if (!compiled.ok()) return 0;
  Store store(kLimits);
  store.set_fuel(kFuelPerCall);  // the start function runs under the same budget
  std::vector<Extern> imports;
  if (!MakeImports(store, (*compiled)->module, imports)) return 0;
  InstantiateResult r = store.Instantiate(*compiled, imports);
  if (r.kind != InstantiateResult::Kind::kOk) return 0;
  InvokeExports(store, *r.instance);
  return 0;
}
