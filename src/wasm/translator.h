// Translator: a validated function body -> the interpreter's internal form.
//
// (Being written: see docs/interpreter.md for the design.)
#pragma once

#include <memory>

#include "util/result.h"
#include "wasm/module.h"
#include "wasm/runtime.h"

namespace ampoule::wasm {

// REQUIRES: `code` is function `index` of `module` and passed ValidateFunction.
Result<CompiledFunctionPtr> TranslateFunction(const Module& module, uint32_t index,
                                             const FunctionCode& code);

}  // namespace ampoule::wasm
