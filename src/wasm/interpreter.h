// Interpreter: runs translated code. (Being written: see docs/interpreter.md.)
#pragma once

#include <span>

#include "wasm/runtime.h"

namespace ampoule::wasm {

// Runs `func` (wasm or host) with `args` until it returns, traps, runs out of
// fuel or a host function exits. Charges the store's fuel.
// REQUIRES: args match func->type (Store::Invoke checks this).
Outcome Execute(Store& store, FunctionInstance* func, std::span<const Value> args);

}  // namespace ampoule::wasm
