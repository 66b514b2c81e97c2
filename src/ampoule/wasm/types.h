// WebAssembly types as the binary format defines them (core spec 2.0, 2.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ampoule::wasm {

// Value types with their binary encodings. V128 is decoded so the design has
// room for SIMD, but the validator currently rejects it as unsupported.
enum class ValType : uint8_t {
  I32 = 0x7F,
  I64 = 0x7E,
  F32 = 0x7D,
  F64 = 0x7C,
  V128 = 0x7B,
  FuncRef = 0x70,
  ExternRef = 0x6F,
};

inline bool IsRefType(ValType t) { return t == ValType::FuncRef || t == ValType::ExternRef; }
const char* ValTypeName(ValType t);

struct FuncType {
  std::vector<ValType> params;
  std::vector<ValType> results;
  bool operator==(const FuncType&) const = default;
};
std::string FuncTypeToString(const FuncType& t);

// Limits in units of pages (memories) or elements (tables).
struct Limits {
  uint32_t min = 0;
  std::optional<uint32_t> max;
  bool operator==(const Limits&) const = default;
};

struct TableType {
  ValType elem = ValType::FuncRef;  // FuncRef or ExternRef
  Limits limits;
};

struct MemoryType {
  Limits limits;  // in 64 KiB pages; at most 65536
};

struct GlobalType {
  ValType type = ValType::I32;
  bool mutable_ = false;
};

enum class ExternKind : uint8_t { Func = 0, Table = 1, Memory = 2, Global = 3 };
const char* ExternKindName(ExternKind k);

constexpr uint32_t kPageSize = 65536;
constexpr uint32_t kMaxPages = 65536;

}  // namespace ampoule::wasm
