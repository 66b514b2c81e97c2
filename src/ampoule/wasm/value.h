// Values crossing the engine boundary, and the trap and stop vocabulary.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "ampoule/wasm/types.h"

namespace ampoule::wasm {

// A reference: 0 is null. A non-null funcref is the address of a
// FunctionInstance; a non-null externref is whatever non-zero number the
// embedder chose.
using Ref = uint64_t;
constexpr Ref kNullRef = 0;

// A typed value. Numbers are kept as their bit patterns: i32 zero-extended,
// f32/f64 as IEEE bits, so NaN payloads survive unchanged.
struct Value {
  ValType type = ValType::I32;
  uint64_t bits = 0;

  static Value I32(uint32_t v) { return {ValType::I32, v}; }
  static Value I64(uint64_t v) { return {ValType::I64, v}; }
  static Value F32Bits(uint32_t v) { return {ValType::F32, v}; }
  static Value F64Bits(uint64_t v) { return {ValType::F64, v}; }
  static Value F32(float v) { return {ValType::F32, std::bit_cast<uint32_t>(v)}; }
  static Value F64(double v) { return {ValType::F64, std::bit_cast<uint64_t>(v)}; }
  static Value FuncRef(Ref r) { return {ValType::FuncRef, r}; }
  static Value ExternRef(Ref r) { return {ValType::ExternRef, r}; }
  static Value Default(ValType t) { return {t, 0}; }

  uint32_t i32() const { return uint32_t(bits); }
  uint64_t i64() const { return bits; }
  float f32() const { return std::bit_cast<float>(uint32_t(bits)); }
  double f64() const { return std::bit_cast<double>(bits); }
  bool operator==(const Value&) const = default;
};

// Every way a run can trap. The messages are the ones the core spec test
// suite uses, so conformance can compare them.
enum class TrapKind : uint8_t {
  kNone,
  kUnreachable,               // "unreachable"
  kMemoryOutOfBounds,         // "out of bounds memory access"
  kTableOutOfBounds,          // "out of bounds table access"
  kUndefinedElement,          // "undefined element"
  kUninitializedElement,      // "uninitialized element"
  kIndirectCallTypeMismatch,  // "indirect call type mismatch"
  kIntegerDivideByZero,       // "integer divide by zero"
  kIntegerOverflow,           // "integer overflow"
  kInvalidConversion,         // "invalid conversion to integer"
  kNullReference,             // "null reference"
  kCallStackExhausted,        // "call stack exhausted"
  kValueStackExhausted,       // "call stack exhausted" (value stack)
  kHost,                      // a host function failed; see Outcome::message
};
const char* TrapMessage(TrapKind kind);
// A stable identifier for records: "unreachable", "memory_out_of_bounds", ...
const char* TrapName(TrapKind kind);

// Why execution stopped.
enum class StopReason : uint8_t {
  kReturned,   // the function returned normally; results are set
  kTrap,       // see Outcome::trap
  kOutOfFuel,  // the fuel budget ran out; not a trap, the guest cannot catch it
  kExit,       // a host function (WASI proc_exit) ended the run; see exit_code
};
const char* StopReasonName(StopReason r);  // "returned", "trap", "fuel", "exit"

struct Outcome {
  StopReason stop = StopReason::kReturned;
  TrapKind trap = TrapKind::kNone;
  int32_t exit_code = 0;      // kExit only
  std::string message;        // human-readable detail for traps
  std::vector<Value> results; // kReturned only
};

}  // namespace ampoule::wasm
