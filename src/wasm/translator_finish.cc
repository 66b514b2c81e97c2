// Translator: the last steps. Fuel entry points become costs and handler
// addresses are written in.
#include <cstring>
#include <string>

#include "wasm/translator_internal.h"

namespace ampoule::wasm::translator {

Result<CompiledFunctionPtr> FunctionTranslator::Finish() {
  // Fuel operands hold entry points until here; they sit at fixed places in
  // each kind of branch.
  bool too_large = EntryCost(entry_fuel_) > UINT32_MAX;
  auto patch = [&](uint32_t unit) {
    uint64_t cost = EntryCost(uint32_t(code_[unit]));
    too_large = too_large || cost > UINT32_MAX;
    code_[unit] = int32_t(uint32_t(cost));
  };
  for (size_t i = 0; i < ops_.size(); ++i) {
    uint32_t s = starts_[i];
    IOp op = ops_[i];
    if (op == IOp::Br) {
      patch(s + 3);
    } else if (op >= IOp::BrNz && op <= IOp::BrZ64) {
      patch(s + 4);
      patch(s + 5);
    } else if (op > IOp::BrZ64 && op <= IOp::BrGeU64) {
      patch(s + 5);
      patch(s + 6);
    } else if (op > IOp::BrGeU64 && op <= IOp::Add32IBrZ) {
      patch(s + 6);
      patch(s + 7);
    } else if (op == IOp::BrTable) {
      uint32_t entries = uint32_t(code_[s + 3]) + 1;
      for (uint32_t j = 0; j < entries; ++j) patch(s + 5 + 2 * j);
    }
  }
  if (too_large) {
    return Error{"function " + std::to_string(index_) + " has a straight-line run too large to meter"};
  }
  const void* const* handlers = InterpreterHandlers();
  for (size_t i = 0; i < starts_.size(); ++i) {
    std::memcpy(&code_[starts_[i]], &handlers[size_t(ops_[i])], sizeof(void*));
  }

  CompiledFunctionPtr f(new CompiledFunction);
  f->code = std::move(code_);
  f->instr_starts = std::move(starts_);
  f->num_params = uint32_t(type_.params.size());
  f->num_locals = num_locals_ - f->num_params;
  f->num_results = uint32_t(type_.results.size());
  f->first_stack_slot = first_stack_;
  f->frame_slots = std::max(first_stack_ + max_height_, f->num_results);
  f->entry_fuel = uint32_t(EntryCost(entry_fuel_));
  return f;
}

}  // namespace ampoule::wasm::translator
