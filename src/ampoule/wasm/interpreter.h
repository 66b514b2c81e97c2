// Interpreter: runs translated code (docs/interpreter.md).
//
// Thread-safety: like the Store it runs in, one thread at a time per Store.
#pragma once

#include <span>

#include "ampoule/wasm/runtime.h"

namespace ampoule::wasm {

// Runs `func` (wasm or host) with `args` until it returns, traps, runs out of
// fuel or a host function exits, and says which in the Outcome (results only
// when it returned). Charges the store's fuel. Wasm calls use the store's own
// frame and value stacks (never the C stack), bounded by its StoreLimits;
// a host function may call back in (nested runs share those stacks and the
// fuel). The first call reserves the stacks; if that fails, the outcome is a
// kHost trap saying so.
// REQUIRES: args match func->type (Store::Invoke checks this).
Outcome Execute(Store& store, FunctionInstance* func, std::span<const Value> args);

}  // namespace ampoule::wasm
