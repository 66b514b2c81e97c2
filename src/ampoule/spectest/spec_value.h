// Values in spec test scripts: arguments, expected results, and how a result
// the engine produced is judged against an expectation.
//
// wast2json writes every number as the unsigned decimal of its bit pattern
// ("4294967295" for i32 -1, "2143289344" for an f32 NaN), floats included,
// so no value here goes through a floating-point parse. Results may instead
// be "nan:canonical" or "nan:arithmetic" (core spec 2.0, 4.3.3 and the test
// suite's conventions), and references "null" or a host reference number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ampoule/wasm/value.h"
#include "core/result.h"

namespace ampoule::spectest {

struct SpecValue {
  enum class Kind : uint8_t {
    kExact,          // `bits` must equal the result's bits (NaN payloads included)
    kNanCanonical,   // f32/f64: a NaN with only the quiet bit set in the payload, either sign
    kNanArithmetic,  // f32/f64: a NaN with the quiet bit set, any other payload, either sign
    kNonNullRef,     // funcref/externref: any non-null reference ("ref.func", "ref.extern")
    kTypeOnly,       // a number type with no value given: any value of that type (the
                     // "expected" list of assert_trap names only result types)
    kV128,           // a SIMD value; not supported yet, kept only to be reported
  };
  wasm::ValType type = wasm::ValType::I32;
  Kind kind = Kind::kExact;
  uint64_t bits = 0;  // kExact: as wasm::Value::bits; refs: 0 = null, N+1 = ref.extern N
};

// The reference the harness passes for `ref.extern N`: never null (0), so N+1.
// Returns an error if N+1 overflows.
core::Result<wasm::Ref> ExternRefFromScript(uint64_t n);

// Parses one value from its JSON "type" and "value" strings. `has_value` is
// false when the JSON object had no "value": then a reference type means
// "any non-null reference" and a number type means "any value" (kTypeOnly).
// A "v128" type parses to kind kV128 whatever its value. On failure the message names the type and the offending text.
core::Result<SpecValue> ParseSpecValue(std::string_view type, std::string_view value, bool has_value);

// The engine value an argument denotes.
// REQUIRES: arg.kind == SpecValue::Kind::kExact
wasm::Value ToEngineValue(const SpecValue& arg);

// Whether `actual` satisfies `expected` (types must agree too).
// REQUIRES: expected.kind != SpecValue::Kind::kV128
bool Matches(const SpecValue& expected, const wasm::Value& actual);

// For messages: "i32:4294967295 (0xffffffff)", "f32:nan:canonical",
// "f64:1.5 (0x3ff8000000000000)", "externref:ref.extern 4", "funcref:ref.null".
std::string FormatSpecValue(const SpecValue& value);
std::string FormatEngineValue(const wasm::Value& value);

}  // namespace ampoule::spectest
