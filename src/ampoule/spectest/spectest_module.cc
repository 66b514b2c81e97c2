#include "ampoule/spectest/spectest_module.h"

#include <vector>

namespace ampoule::spectest {
namespace {

using wasm::ValType;

wasm::Extern FuncExtern(wasm::FunctionInstance* f) {
  wasm::Extern e;
  e.kind = wasm::ExternKind::Func;
  e.func = f;
  return e;
}

wasm::Extern GlobalExtern(wasm::GlobalInstance* g) {
  wasm::Extern e;
  e.kind = wasm::ExternKind::Global;
  e.global = g;
  return e;
}

}  // namespace

SpectestModule::SpectestModule(wasm::Store& store) {
  // The print functions exist so scripts can call out to the host; their
  // output is not part of any assertion, so they print nothing.
  struct PrintFn {
    const char* name;
    std::vector<ValType> params;
  };
  const PrintFn prints[] = {
      {"print", {}},
      {"print_i32", {ValType::I32}},
      {"print_i64", {ValType::I64}},
      {"print_f32", {ValType::F32}},
      {"print_f64", {ValType::F64}},
      {"print_i32_f32", {ValType::I32, ValType::F32}},
      {"print_f64_f64", {ValType::F64, ValType::F64}},
  };
  for (const PrintFn& p : prints) {
    wasm::FuncType type{p.params, {}};
    auto ignore = [](wasm::HostContext&, std::span<const uint64_t>, std::span<uint64_t>) {
      return wasm::HostResult::Ok();
    };
    exports_[p.name] = FuncExtern(store.AddHostFunction(type, ignore));
  }

  exports_["global_i32"] = GlobalExtern(store.AddGlobal({ValType::I32, false}, wasm::Value::I32(666)));
  exports_["global_i64"] = GlobalExtern(store.AddGlobal({ValType::I64, false}, wasm::Value::I64(666)));
  exports_["global_f32"] = GlobalExtern(store.AddGlobal({ValType::F32, false}, wasm::Value::F32(666.6f)));
  exports_["global_f64"] = GlobalExtern(store.AddGlobal({ValType::F64, false}, wasm::Value::F64(666.6)));

  wasm::Extern table;
  table.kind = wasm::ExternKind::Table;
  table.table = store.AddTable(wasm::TableType{ValType::FuncRef, wasm::Limits{10, 20}}, wasm::kNullRef);
  exports_["table"] = table;

  wasm::Extern memory;
  memory.kind = wasm::ExternKind::Memory;
  memory.memory = store.AddMemory(wasm::MemoryType{wasm::Limits{1, 2}});
  exports_["memory"] = memory;
}

std::optional<wasm::Extern> SpectestModule::GetExport(std::string_view name) const {
  auto it = exports_.find(name);
  if (it == exports_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ampoule::spectest
