// Translator: a validated function body -> the interpreter's internal form.
//
// The internal form (CompiledFunction, compiled_function.h) is slot based and
// direct threaded, with common sequences fused and fuel charges computed
// from the input instructions' costs; docs/interpreter.md describes it.
// Stateless; safe to call from several threads on different functions.
#pragma once

#include <memory>

#include "ampoule/wasm/module.h"
#include "ampoule/wasm/runtime.h"
#include "core/result.h"

namespace ampoule::wasm {

// Translates defined function `index` (not counting imports). Returns the
// translated function, owned by the caller, or an error if the function is
// too large to run (more than 2^24 frame slots, or a straight-line run whose
// fuel does not fit in 32 bits).
// REQUIRES: `code` is function `index` of `module` and passed ValidateFunction.
core::Result<CompiledFunctionPtr> TranslateFunction(const Module& module, uint32_t index,
                                             const FunctionCode& code);

}  // namespace ampoule::wasm
