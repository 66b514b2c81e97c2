// The translated form of one function, shared by the translator (which
// builds it) and the interpreter (which runs it). Internal to the execution
// stage; see docs/interpreter.md for the format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ampoule/wasm/interpreter_ops.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::wasm {

// A frame is a window of 64-bit slots on the value stack:
//   [0, num_params)                      parameters (written by the caller)
//   [num_params, num_params+num_locals)  declared locals and one slot that
//                                        always holds 0, zeroed on entry
//   [.., first_stack_slot)               scratch slots (copies of `if` params)
//   [first_stack_slot, frame_slots)      the operand stack, one slot per value
// Results are returned in [0, num_results).
struct CompiledFunction {
  // Code units. An instruction's first two units hold its handler's
  // address (see InterpreterHandlers); its operands follow.
  std::vector<int32_t> code;
  // What a call reads, in one cache line with `code`.
  uint32_t frame_slots = 0;   // >= num_results
  uint32_t entry_fuel = 0;    // fuel of the first straight-line run, charged on entry
  uint32_t num_params = 0;
  uint32_t num_locals = 0;
  uint32_t num_results = 0;
  uint32_t first_stack_slot = 0;
  // Start of every instruction in `code`, in order (for listings and checks).
  std::vector<uint32_t> instr_starts;
};

// Handler addresses, indexed by IOp: labels in the interpreter's loop,
// valid for the life of the process.
const void* const* InterpreterHandlers();

// The IOp of the instruction starting at `instr` (for listings);
// IOp::kCount if its handler is unknown.
IOp IOpAt(const int32_t* instr);

// One line per instruction: "12: Add32I 5 3 1". For tests and debugging.
std::string ListCompiledFunction(const CompiledFunction& f);

// The operations of `f` in order, for tests that check fusion.
std::vector<IOp> CompiledOps(const CompiledFunction& f);

}  // namespace ampoule::wasm
