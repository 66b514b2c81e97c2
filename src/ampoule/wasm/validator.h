// Validator: type-checks a decoded Module (core spec 2.0, chapter 3).
//
// One validator serves every front end. It checks every function body (by
// decoding it with DecodeFunctionCode), constant expressions, segments,
// imports, exports, start, limits and the reference-declaration rule. Errors
// read like "invalid module: function 3 at byte 0x2a: type mismatch in
// i32.add: expected i32, got f64".
#pragma once

#include "ampoule/wasm/module.h"
#include "core/result.h"

namespace ampoule::wasm {

// Everything except the function bodies.
core::Status ValidateModuleHeader(const Module& module);

// One defined function's body, already decoded. `index` counts defined
// functions only.
core::Status ValidateFunction(const Module& module, uint32_t index, const FunctionCode& code);

// Both of the above, for every function.
core::Status ValidateModule(const Module& module);

}  // namespace ampoule::wasm
