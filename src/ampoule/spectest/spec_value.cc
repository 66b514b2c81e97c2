#include "ampoule/spectest/spec_value.h"

#include <charconv>
#include <cstdio>

namespace ampoule::spectest {
namespace {

using wasm::ValType;

core::Result<ValType> ParseType(std::string_view type) {
  if (type == "i32") return ValType::I32;
  if (type == "i64") return ValType::I64;
  if (type == "f32") return ValType::F32;
  if (type == "f64") return ValType::F64;
  if (type == "v128") return ValType::V128;
  if (type == "funcref") return ValType::FuncRef;
  if (type == "externref") return ValType::ExternRef;
  return core::Error{"unknown value type \"" + std::string(type) + "\""};
}

// Parses an unsigned decimal that must fit in `bits` bits.
core::Result<uint64_t> ParseUnsigned(std::string_view text, int bits) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  bool fits = bits == 64 || v < (uint64_t(1) << bits);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !fits) {
    return core::Error{"\"" + std::string(text) + "\" is not an unsigned " + std::to_string(bits) +
                 "-bit decimal"};
  }
  return v;
}

bool IsFloat(ValType t) { return t == ValType::F32 || t == ValType::F64; }

// The NaN classes, by bit pattern. A canonical NaN has exactly the quiet bit
// set in its payload; an arithmetic NaN has at least the quiet bit set.
bool IsCanonicalNan(ValType t, uint64_t bits) {
  if (t == ValType::F32) return (bits & 0x7fffffffu) == 0x7fc00000u;
  return (bits & 0x7fffffffffffffffull) == 0x7ff8000000000000ull;
}
bool IsArithmeticNan(ValType t, uint64_t bits) {
  if (t == ValType::F32) return (bits & 0x7fc00000u) == 0x7fc00000u;
  return (bits & 0x7ff8000000000000ull) == 0x7ff8000000000000ull;
}

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string FormatBits(ValType t, uint64_t bits) {
  char buf[64];
  switch (t) {
    case ValType::I32:
    case ValType::I64: return std::to_string(bits) + " (" + Hex(bits) + ")";
    case ValType::F32:
      snprintf(buf, sizeof buf, "%.9g", double(std::bit_cast<float>(uint32_t(bits))));
      return std::string(buf) + " (" + Hex(bits) + ")";
    case ValType::F64:
      snprintf(buf, sizeof buf, "%.17g", std::bit_cast<double>(bits));
      return std::string(buf) + " (" + Hex(bits) + ")";
    case ValType::FuncRef: return bits == wasm::kNullRef ? "ref.null" : "ref.func " + Hex(bits);
    case ValType::ExternRef:
      return bits == wasm::kNullRef ? "ref.null" : "ref.extern " + std::to_string(bits - 1);
    case ValType::V128: return "(v128)";
  }
  return "?";
}

}  // namespace

core::Result<wasm::Ref> ExternRefFromScript(uint64_t n) {
  if (n == UINT64_MAX) return core::Error{"ref.extern " + std::to_string(n) + " is out of range"};
  return n + 1;
}

core::Result<SpecValue> ParseSpecValue(std::string_view type_text, std::string_view value, bool has_value) {
  core::Result<ValType> type = ParseType(type_text);
  if (!type) return type.error();
  SpecValue v;
  v.type = *type;
  if (v.type == ValType::V128) {
    v.kind = SpecValue::Kind::kV128;
    return v;
  }
  if (wasm::IsRefType(v.type)) {
    if (!has_value) {
      v.kind = SpecValue::Kind::kNonNullRef;
      return v;
    }
    if (value == "null") return v;  // kExact, bits 0
    core::Result<uint64_t> n = ParseUnsigned(value, 64);
    if (!n) return core::Error{std::string(type_text) + " value: " + n.message()};
    if (v.type == ValType::FuncRef) {
      // A function reference has no number the script could know; a number
      // here can only mean "some function".
      v.kind = SpecValue::Kind::kNonNullRef;
      return v;
    }
    core::Result<wasm::Ref> ref = ExternRefFromScript(*n);
    if (!ref) return ref.error();
    v.bits = *ref;
    return v;
  }
  if (!has_value) {
    v.kind = SpecValue::Kind::kTypeOnly;
    return v;
  }
  if (IsFloat(v.type) && value == "nan:canonical") {
    v.kind = SpecValue::Kind::kNanCanonical;
    return v;
  }
  if (IsFloat(v.type) && value == "nan:arithmetic") {
    v.kind = SpecValue::Kind::kNanArithmetic;
    return v;
  }
  int width = (v.type == ValType::I32 || v.type == ValType::F32) ? 32 : 64;
  core::Result<uint64_t> bits = ParseUnsigned(value, width);
  if (!bits) return core::Error{std::string(type_text) + " value: " + bits.message()};
  v.bits = *bits;
  return v;
}

wasm::Value ToEngineValue(const SpecValue& arg) { return wasm::Value{arg.type, arg.bits}; }

bool Matches(const SpecValue& expected, const wasm::Value& actual) {
  if (expected.type != actual.type) return false;
  uint64_t bits = actual.bits;
  if (actual.type == ValType::I32 || actual.type == ValType::F32) bits &= 0xffffffffu;
  switch (expected.kind) {
    case SpecValue::Kind::kExact: return bits == expected.bits;
    case SpecValue::Kind::kNanCanonical: return IsFloat(actual.type) && IsCanonicalNan(actual.type, bits);
    case SpecValue::Kind::kNanArithmetic: return IsFloat(actual.type) && IsArithmeticNan(actual.type, bits);
    case SpecValue::Kind::kNonNullRef: return wasm::IsRefType(actual.type) && bits != wasm::kNullRef;
    case SpecValue::Kind::kTypeOnly: return true;
    case SpecValue::Kind::kV128: return false;
  }
  return false;
}

std::string FormatSpecValue(const SpecValue& value) {
  std::string prefix = std::string(wasm::ValTypeName(value.type)) + ":";
  switch (value.kind) {
    case SpecValue::Kind::kExact: return prefix + FormatBits(value.type, value.bits);
    case SpecValue::Kind::kNanCanonical: return prefix + "nan:canonical";
    case SpecValue::Kind::kNanArithmetic: return prefix + "nan:arithmetic";
    case SpecValue::Kind::kNonNullRef:
      return prefix + (value.type == ValType::FuncRef ? "ref.func" : "ref.extern");
    case SpecValue::Kind::kTypeOnly: return prefix + "any";
    case SpecValue::Kind::kV128: return prefix + "(v128)";
  }
  return prefix + "?";
}

std::string FormatEngineValue(const wasm::Value& value) {
  uint64_t bits = value.bits;
  if (value.type == ValType::I32 || value.type == ValType::F32) bits &= 0xffffffffu;
  return std::string(wasm::ValTypeName(value.type)) + ":" + FormatBits(value.type, bits);
}

}  // namespace ampoule::spectest
