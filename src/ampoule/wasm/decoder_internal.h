// Internals shared by the decoder's files (decoder.cc, decoder_sections.cc,
// decoder_expr.cc). Not part of the public API: include decoder.h instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ampoule/wasm/binary_reader.h"
#include "ampoule/wasm/module.h"

namespace ampoule::wasm::decoder_internal {

// Named limits on untrusted input. A module over a limit is rejected as
// malformed with a message naming the limit. The values follow common
// browser engine limits so that any module a browser accepts is accepted
// here too; see docs/decisions/0003-decoder-limits.md.
inline constexpr size_t kMaxModuleSize = size_t(1) << 30;  // 1 GiB; offsets are u32
inline constexpr uint32_t kMaxTypes = 1'000'000;
inline constexpr uint32_t kMaxImports = 100'000;
inline constexpr uint32_t kMaxFunctions = 1'000'000;
inline constexpr uint32_t kMaxTables = 100'000;
inline constexpr uint32_t kMaxMemories = 100'000;
inline constexpr uint32_t kMaxGlobals = 1'000'000;
inline constexpr uint32_t kMaxExports = 100'000;
inline constexpr uint32_t kMaxElemSegments = 10'000'000;
inline constexpr uint32_t kMaxElemItems = 10'000'000;  // per segment
inline constexpr uint32_t kMaxDataSegments = 100'000;
inline constexpr uint32_t kMaxFunctionParams = 1'000;
inline constexpr uint32_t kMaxFunctionResults = 1'000;
inline constexpr uint32_t kMaxFunctionLocals = 50'000;  // declared, params excluded
// Locals are stored expanded (one ValType each), so a few bytes declaring
// 50,000 locals cost 50 KB; this caps the sum over all functions.
inline constexpr uint32_t kMaxModuleLocals = 1u << 24;
inline constexpr uint32_t kMaxFunctionSize = 7'654'321;  // bytes of one body
inline constexpr uint32_t kMaxBrTableTargets = 65'520;

// Reads a vector count and checks it against `limit` (named `what` in the
// error). Returns 0 on failure.
uint32_t ReadCount(BinaryReader& r, uint32_t limit, const char* what);

// How many elements to reserve for a vector of `count` items whose
// encodings take at least one byte each: never more than the bytes left,
// so a lying count cannot make us allocate.
inline size_t SafeReserve(const BinaryReader& r, uint32_t count) {
  return count < r.remaining() ? count : r.remaining();
}

// Value and reference types (5.3.1-5.3.3). V128 is accepted here; the
// validator rejects it.
ValType ReadValType(BinaryReader& r);
ValType ReadRefType(BinaryReader& r);

// What an expression is decoded for.
enum class ExprKind : uint8_t {
  Function,  // a function body: the final `end` is kept as the last Instr
  Const,     // a constant expression: the final `end` is consumed, not kept
};

// Decodes instructions up to and including the `end` that closes the
// expression, appending them to `out` and br_table labels to `targets`.
// Checks that blocks nest (`else` only inside `if`). For function bodies,
// memory.init and data.drop require `module.data_count`. On failure the
// reader holds the error.
void DecodeExpr(BinaryReader& r, const Module& module, ExprKind kind, std::vector<Instr>* out,
                std::vector<uint32_t>* targets);

// A constant expression at the reader (global initialisers, segment offsets
// and items). ref.func indices are added to module.declared_func_refs.
ConstExpr ReadConstExpr(BinaryReader& r, Module& module);

// Section contents (5.5.2-5.5.13). Each reads the whole section payload from
// `r`, which is bounded by the section size; the caller checks that the
// payload was consumed exactly.
void DecodeTypeSection(BinaryReader& r, Module& m);
void DecodeImportSection(BinaryReader& r, Module& m);
// Returns the number of functions declared.
uint32_t DecodeFunctionSection(BinaryReader& r, Module& m);
void DecodeTableSection(BinaryReader& r, Module& m);
void DecodeMemorySection(BinaryReader& r, Module& m);
void DecodeGlobalSection(BinaryReader& r, Module& m);
void DecodeExportSection(BinaryReader& r, Module& m);
void DecodeStartSection(BinaryReader& r, Module& m);
void DecodeElemSection(BinaryReader& r, Module& m);
void DecodeDataCountSection(BinaryReader& r, Module& m);
// `declared` is the function section's count.
void DecodeCodeSection(BinaryReader& r, Module& m, uint32_t declared);
void DecodeDataSection(BinaryReader& r, Module& m);

}  // namespace ampoule::wasm::decoder_internal
