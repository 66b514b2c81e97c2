// Module-level validation (core spec 2.0, 3.2 and 3.4): types, imports,
// tables, memories, globals, exports, start, element and data segments, and
// the constant expressions inside them. Function bodies are checked in
// validator_func.cc.
#include "ampoule/wasm/validator.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include "ampoule/wasm/decoder.h"
#include "ampoule/wasm/validator_internal.h"

namespace ampoule::wasm {
namespace validator_internal {

std::string Hex(uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", value);
  return buf;
}

std::string TypesToString(std::span<const ValType> types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) s += ' ';
    s += TypeName(types[i]);
  }
  return s + "]";
}

namespace {

core::Error Describe(std::string_view prefix, std::string_view where, uint32_t offset,
               std::string_view what) {
  std::string msg(prefix);
  msg += where;
  if (offset != kNoOffset) msg += " at byte " + Hex(offset);
  msg += ": ";
  msg += what;
  return core::Error{std::move(msg)};
}

}  // namespace

core::Error Invalid(std::string_view where, uint32_t offset, std::string_view what) {
  return Describe("invalid module: ", where, offset, what);
}

core::Error UnsupportedSimd(std::string_view where, uint32_t offset, std::string_view what) {
  return Describe("unsupported: simd: ", where, offset, what);
}

}  // namespace validator_internal

namespace {

using namespace validator_internal;

std::string Name(std::string_view kind, uint64_t index) {
  return std::string(kind) + " " + std::to_string(index);
}
std::string Num(uint64_t v) { return std::to_string(v); }

core::Status CheckTypes(const Module& m) {
  for (size_t i = 0; i < m.types.size(); ++i) {
    const FuncType& t = m.types[i];
    if (std::count(t.params.begin(), t.params.end(), ValType::V128) ||
        std::count(t.results.begin(), t.results.end(), ValType::V128)) {
      return UnsupportedSimd(Name("type", i), kNoOffset, "v128 in " + FuncTypeToString(t));
    }
  }
  for (size_t i = 0; i < m.func_types.size(); ++i) {
    if (m.func_types[i] >= m.types.size()) {
      return Invalid(Name("function", i), kNoOffset, "unknown type " + Num(m.func_types[i]));
    }
  }
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (m.functions[i].type >= m.types.size()) {
      return Invalid(Name("function", m.num_imported_funcs + i), m.functions[i].code_begin,
                     "unknown type " + Num(m.functions[i].type));
    }
  }
  return core::Status::Ok();
}

// The reference interpreter's order: range first, then min <= max.
core::Status CheckLimits(const Limits& l, uint64_t range, const char* range_msg,
                   std::string_view where) {
  if (l.min > range || (l.max && *l.max > range)) return Invalid(where, kNoOffset, range_msg);
  if (l.max && l.min > *l.max) {
    return Invalid(where, kNoOffset,
                   "size minimum must not be greater than maximum (" + Num(l.min) + " > " +
                       Num(*l.max) + ")");
  }
  return core::Status::Ok();
}

core::Status CheckTablesAndMemories(const Module& m) {
  for (size_t i = 0; i < m.tables.size(); ++i) {
    CORE_RETURN_IF_ERROR(CheckLimits(m.tables[i].limits, UINT32_MAX, "table size out of range",
                                    Name("table", i)));
  }
  if (m.memories.size() > 1) {
    return Invalid("memory 1", kNoOffset, "multiple memories are not allowed");
  }
  for (size_t i = 0; i < m.memories.size(); ++i) {
    CORE_RETURN_IF_ERROR(CheckLimits(m.memories[i].limits, kMaxPages,
                                    "memory size must be at most 65536 pages (4GiB)",
                                    Name("memory", i)));
  }
  return core::Status::Ok();
}

// A constant expression must be exactly one constant instruction producing
// `expected`; global.get may read only immutable imported globals.
core::Status CheckConstExpr(const Module& m, const ConstExpr& e, ValType expected,
                      std::string_view kind, uint64_t index) {
  ValType type = kUnknown;
  for (const Instr& in : e.instrs) {
    switch (in.op) {
      case Opcode::I32Const: type = ValType::I32; break;
      case Opcode::I64Const: type = ValType::I64; break;
      case Opcode::F32Const: type = ValType::F32; break;
      case Opcode::F64Const: type = ValType::F64; break;
      case Opcode::RefNull: type = in.ref; break;
      case Opcode::RefFunc:
        if (in.a >= m.func_types.size()) {
          return Invalid(Name(kind, index), in.offset, "unknown function " + Num(in.a));
        }
        type = ValType::FuncRef;
        break;
      case Opcode::GlobalGet:
        if (in.a >= m.num_imported_globals || in.a >= m.global_types.size()) {
          return Invalid(Name(kind, index), in.offset,
                         "unknown global " + Num(in.a) +
                             " (constant expressions may read only imported globals)");
        }
        if (m.global_types[in.a].mutable_) {
          return Invalid(Name(kind, index), in.offset,
                         "constant expression required: global " + Num(in.a) + " is mutable");
        }
        type = m.global_types[in.a].type;
        break;
      default:
        return Invalid(Name(kind, index), in.offset,
                       std::string("constant expression required: ") +
                           GetOpcodeInfo(in.op).text + " is not a constant instruction");
    }
  }
  if (e.instrs.size() == 1 && type == expected) return core::Status::Ok();
  std::string got = e.instrs.empty()     ? "nothing"
                    : e.instrs.size() > 1 ? Num(e.instrs.size()) + " values"
                                          : std::string(TypeName(type));
  return Invalid(Name(kind, index), e.offset,
                 std::string("type mismatch in constant expression: expected ") +
                     TypeName(expected) + ", got " + got);
}

core::Status CheckGlobals(const Module& m) {
  for (size_t i = 0; i < m.global_types.size(); ++i) {
    if (m.global_types[i].type == ValType::V128) {
      return UnsupportedSimd(Name("global", i), kNoOffset, "v128 global");
    }
  }
  for (size_t i = 0; i < m.globals.size(); ++i) {
    CORE_RETURN_IF_ERROR(CheckConstExpr(m, m.globals[i].init, m.globals[i].type.type, "global",
                                       m.num_imported_globals + i));
  }
  return core::Status::Ok();
}

core::Status CheckExports(const Module& m) {
  std::vector<std::string_view> names;
  names.reserve(m.exports.size());
  for (const Export& e : m.exports) {
    size_t count = 0;
    switch (e.kind) {
      case ExternKind::Func: count = m.func_types.size(); break;
      case ExternKind::Table: count = m.tables.size(); break;
      case ExternKind::Memory: count = m.memories.size(); break;
      case ExternKind::Global: count = m.global_types.size(); break;
    }
    if (e.index >= count) {
      return Invalid("export \"" + e.name + "\"", kNoOffset,
                     std::string("unknown ") + ExternKindName(e.kind) + " " + Num(e.index));
    }
    names.push_back(e.name);
  }
  std::sort(names.begin(), names.end());
  auto dup = std::adjacent_find(names.begin(), names.end());
  if (dup != names.end()) {
    return Invalid("export \"" + std::string(*dup) + "\"", kNoOffset, "duplicate export name");
  }
  return core::Status::Ok();
}

core::Status CheckStart(const Module& m) {
  if (!m.start) return core::Status::Ok();
  uint32_t f = *m.start;
  if (f >= m.func_types.size()) return Invalid("start", kNoOffset, "unknown function " + Num(f));
  const FuncType& t = m.func_type(f);
  if (!t.params.empty() || !t.results.empty()) {
    return Invalid("start", kNoOffset,
                   "start function " + Num(f) + " must have type [] -> [], has " +
                       FuncTypeToString(t));
  }
  return core::Status::Ok();
}

core::Status CheckElems(const Module& m) {
  for (size_t i = 0; i < m.elems.size(); ++i) {
    const ElemSegment& s = m.elems[i];
    if (s.mode == SegmentMode::Active) {
      if (s.table >= m.tables.size()) {
        return Invalid(Name("elem segment", i), s.byte_offset, "unknown table " + Num(s.table));
      }
      if (m.tables[s.table].elem != s.type) {
        return Invalid(Name("elem segment", i), s.byte_offset,
                       std::string("type mismatch: segment of ") + ValTypeName(s.type) +
                           " for table " + Num(s.table) + " of " +
                           ValTypeName(m.tables[s.table].elem));
      }
      CORE_RETURN_IF_ERROR(CheckConstExpr(m, s.offset, ValType::I32, "elem segment", i));
    }
    for (const ConstExpr& item : s.items) {
      CORE_RETURN_IF_ERROR(CheckConstExpr(m, item, s.type, "elem segment", i));
    }
  }
  return core::Status::Ok();
}

core::Status CheckDatas(const Module& m) {
  if (m.data_count && *m.data_count != m.datas.size()) {
    return Invalid("data count section", kNoOffset,
                   "data count and data section have inconsistent lengths");
  }
  for (size_t i = 0; i < m.datas.size(); ++i) {
    const DataSegment& s = m.datas[i];
    if (s.mode != SegmentMode::Active) continue;
    if (s.memory >= m.memories.size()) {
      return Invalid(Name("data segment", i), s.byte_offset, "unknown memory " + Num(s.memory));
    }
    CORE_RETURN_IF_ERROR(CheckConstExpr(m, s.offset, ValType::I32, "data segment", i));
  }
  return core::Status::Ok();
}

}  // namespace

core::Status ValidateModuleHeader(const Module& module) {
  CORE_RETURN_IF_ERROR(CheckTypes(module));
  CORE_RETURN_IF_ERROR(CheckTablesAndMemories(module));
  CORE_RETURN_IF_ERROR(CheckGlobals(module));
  CORE_RETURN_IF_ERROR(CheckExports(module));
  CORE_RETURN_IF_ERROR(CheckStart(module));
  CORE_RETURN_IF_ERROR(CheckElems(module));
  CORE_RETURN_IF_ERROR(CheckDatas(module));
  return core::Status::Ok();
}

core::Status ValidateModule(const Module& module) {
  CORE_RETURN_IF_ERROR(ValidateModuleHeader(module));
  for (uint32_t i = 0; i < module.functions.size(); ++i) {
    core::Result<FunctionCode> code = DecodeFunctionCode(module, i);
    if (!code) return code.error();
    CORE_RETURN_IF_ERROR(ValidateFunction(module, i, *code));
  }
  return core::Status::Ok();
}

}  // namespace ampoule::wasm
