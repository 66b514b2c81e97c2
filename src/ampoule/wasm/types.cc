#include "ampoule/wasm/types.h"

namespace ampoule::wasm {

const char* ValTypeName(ValType t) {
  switch (t) {
    case ValType::I32: return "i32";
    case ValType::I64: return "i64";
    case ValType::F32: return "f32";
    case ValType::F64: return "f64";
    case ValType::V128: return "v128";
    case ValType::FuncRef: return "funcref";
    case ValType::ExternRef: return "externref";
  }
  return "?";
}

std::string FuncTypeToString(const FuncType& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.params.size(); ++i) s += (i ? " " : "") + std::string(ValTypeName(t.params[i]));
  s += "] -> [";
  for (size_t i = 0; i < t.results.size(); ++i) s += (i ? " " : "") + std::string(ValTypeName(t.results[i]));
  return s + "]";
}

const char* ExternKindName(ExternKind k) {
  switch (k) {
    case ExternKind::Func: return "function";
    case ExternKind::Table: return "table";
    case ExternKind::Memory: return "memory";
    case ExternKind::Global: return "global";
  }
  return "?";
}

}  // namespace ampoule::wasm
