// Decoder: WebAssembly binary -> Module (core spec 2.0, chapter 5).
//
// Checks that the bytes are well formed (magic, version, section order and
// sizes, LEB128 encodings, UTF-8 names, counts that match) and nothing more:
// type checking is the validator's job. Every error names the byte offset.
// Untrusted input: never crashes, never allocates more than a bounded
// multiple of the input size (see the kMax* limits in decoder_internal.h
// and docs/decisions/0003-decoder-limits.md).
#pragma once

#include <cstdint>
#include <span>

#include "ampoule/wasm/module.h"
#include "core/result.h"

namespace ampoule::wasm {

// Decodes a whole module. Function bodies are checked for their local
// declarations and size; their instructions are decoded by
// DecodeFunctionCode. On error the message reads like
// "malformed module at byte 0x1f: unexpected end of section".
core::Result<Module> DecodeModule(std::span<const uint8_t> bytes);

// Decodes the instructions of defined function `index` (0 = first defined
// function, not counting imports). Fails on malformed encodings, unknown
// opcodes ("unsupported: simd" for the 0xFD prefix), or code that runs past
// the body. Does not type-check.
core::Result<FunctionCode> DecodeFunctionCode(const Module& module, uint32_t index);

}  // namespace ampoule::wasm
