// Floating-point and conversion semantics of the interpreter, exactly as the
// core spec defines them and identical on every host. Internal.
//
// Every operation that can produce a NaN returns the canonical NaN (sign 0,
// quiet bit only), so payloads never depend on the host's FPU. Operations
// that only move bits (abs, neg, copysign, loads, stores, reinterpretation)
// are done on the bits and keep payloads as they are.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "ampoule/wasm/value.h"

namespace ampoule::wasm::numeric {

constexpr uint32_t kCanonicalNaN32 = 0x7fc00000u;
constexpr uint64_t kCanonicalNaN64 = 0x7ff8000000000000ull;

inline uint32_t Canon(float x) { return x != x ? kCanonicalNaN32 : std::bit_cast<uint32_t>(x); }
inline uint64_t Canon(double x) { return x != x ? kCanonicalNaN64 : std::bit_cast<uint64_t>(x); }

// min/max: NaN if either is NaN; -0 is below +0.
inline uint32_t Min(float a, float b) {
  if (a != a || b != b) return kCanonicalNaN32;
  if (a == b) return std::bit_cast<uint32_t>(a) | std::bit_cast<uint32_t>(b);
  return std::bit_cast<uint32_t>(a < b ? a : b);
}
inline uint32_t Max(float a, float b) {
  if (a != a || b != b) return kCanonicalNaN32;
  if (a == b) return std::bit_cast<uint32_t>(a) & std::bit_cast<uint32_t>(b);
  return std::bit_cast<uint32_t>(a > b ? a : b);
}
inline uint64_t Min(double a, double b) {
  if (a != a || b != b) return kCanonicalNaN64;
  if (a == b) return std::bit_cast<uint64_t>(a) | std::bit_cast<uint64_t>(b);
  return std::bit_cast<uint64_t>(a < b ? a : b);
}
inline uint64_t Max(double a, double b) {
  if (a != a || b != b) return kCanonicalNaN64;
  if (a == b) return std::bit_cast<uint64_t>(a) & std::bit_cast<uint64_t>(b);
  return std::bit_cast<uint64_t>(a > b ? a : b);
}

// Round to nearest, ties to even, independent of the rounding mode: built
// from floor and exact arithmetic only (GCC's and Clang's builtins differ).
template <class F>
inline F RoundHalfEven(F x, F first_integral) {
  F ax = std::fabs(x);
  if (!(ax < first_integral)) return x;  // NaN, infinity, or already integral
  F r = std::floor(ax);
  F diff = ax - r;  // exact: r <= ax < 2r, or r == 0
  if (diff > F(0.5) || (diff == F(0.5) && std::fmod(r, F(2)) != 0)) r += 1;
  return std::copysign(r, x);  // -0.4 rounds to -0
}
inline float Nearest(float x) { return RoundHalfEven(x, 8388608.0f); }            // 2^23
inline double Nearest(double x) { return RoundHalfEven(x, 4503599627370496.0); }  // 2^52

// 2^31, 2^32, 2^63 or 2^64: the first value above the integer range.
constexpr double Bound(bool is_signed, int bits) {
  if (bits == 32) return is_signed ? 2147483648.0 : 4294967296.0;
  return is_signed ? 9223372036854775808.0 : 18446744073709551616.0;
}

// Trapping float -> int truncation. The range checks are done in double,
// which holds every f32 and every bound exactly.
template <class Int>
inline TrapKind Trunc(double x, Int* out) {
  if (x != x) return TrapKind::kInvalidConversion;
  constexpr bool kSigned = Int(-1) < Int(0);
  constexpr int kBits = sizeof(Int) * 8;
  // Exclusive bounds: x must lie strictly inside (lo, hi).
  constexpr double hi = Bound(kSigned, kBits);
  constexpr double lo = kSigned ? (kBits == 32 ? -2147483649.0 : -9223372036854775808.0) : -1.0;
  bool in_range = kBits == 64 && kSigned ? (x >= lo && x < hi) : (x > lo && x < hi);
  if (!in_range) return TrapKind::kIntegerOverflow;
  *out = Int(x);
  return TrapKind::kNone;
}

// Saturating truncation: NaN -> 0, out of range -> the nearest bound.
template <class Int>
inline Int TruncSat(double x) {
  constexpr bool kSigned = Int(-1) < Int(0);
  constexpr int kBits = sizeof(Int) * 8;
  constexpr Int kMin = kSigned ? Int(Int(1) << (kBits - 1)) : Int(0);
  constexpr Int kMax = Int(~kMin);
  if (x != x) return 0;
  constexpr double hi = Bound(kSigned, kBits);
  if (x >= hi) return kMax;
  if (kSigned ? x < -hi : x <= -1.0) return kMin;
  return Int(x);
}

}  // namespace ampoule::wasm::numeric
