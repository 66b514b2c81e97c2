// Translator: the last steps. Fuel block numbers become costs, charges that
// do nothing are dropped (moving the code after them and every branch over
// them), and handler addresses are written in.
#include <algorithm>
#include <cstring>
#include <string>

#include "wasm/translator_internal.h"

namespace ampoule::wasm::translator {
namespace {

// Appends the code units of the instruction at `start` that hold branch
// targets (relative to `start`).
void TargetUnits(IOp op, uint32_t start, const std::vector<int32_t>& code, std::vector<uint32_t>* out) {
  if (op == IOp::Br) {
    out->push_back(start + 2);
  } else if (op >= IOp::BrNz && op <= IOp::BrZ64) {
    out->push_back(start + 3);
  } else if (op > IOp::BrZ64 && op <= IOp::BrGeU64) {
    out->push_back(start + 4);
  } else if (op > IOp::BrGeU64 && op <= IOp::Add32IBrZ) {
    out->push_back(start + 5);
  } else if (op == IOp::BrTable) {
    uint32_t entries = uint32_t(code[start + 3]) + 1;
    for (uint32_t j = 0; j < entries; ++j) out->push_back(start + 4 + 2 * j);
  }
}

}  // namespace

// A Charge right after a conditional branch whose not-taken block is empty
// and free moves into that branch: taking the not-taken edge then charging
// the Charge's block is the same as charging it on the edge.
void FunctionTranslator::MergeCharges() {
  std::vector<bool> drop(ops_.size(), false);
  for (const ChargeAfterBranch& m : charge_merges_) {
    if (fuel_cost_[uint32_t(code_[m.ff_unit])] != 0) continue;
    code_[m.ff_unit] = code_[starts_[m.charge] + 2];  // the Charge's fuel block
    drop[m.charge] = true;
  }
  // A Charge of a block that costs nothing does nothing.
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (ops_[i] == IOp::Charge && fuel_cost_[uint32_t(code_[starts_[i] + 2])] == 0) drop[i] = true;
  }
  Compact(drop);
}

// Removes the instructions marked in `drop` (which must have no effect) and
// moves every branch target past them.
void FunctionTranslator::Compact(const std::vector<bool>& drop) {
  bool any = false;
  for (bool d : drop) any = any || d;
  if (!any) return;
  size_t n = ops_.size();
  // New position of every old instruction start; a dropped instruction maps
  // to the next kept one.
  std::vector<uint32_t> new_start(n + 1);
  uint32_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    new_start[i] = pos;
    if (!drop[i]) {
      uint32_t end = i + 1 < n ? starts_[i + 1] : uint32_t(code_.size());
      pos += end - starts_[i];
    }
  }
  new_start[n] = pos;
  auto map = [&](uint32_t old_pos) {
    size_t i = std::lower_bound(starts_.begin(), starts_.end(), old_pos) - starts_.begin();
    return new_start[i];  // targets are always instruction starts (or the end)
  };

  std::vector<int32_t> code;
  code.reserve(pos);
  std::vector<uint32_t> starts;
  std::vector<IOp> ops;
  std::vector<uint32_t> targets;
  for (size_t i = 0; i < n; ++i) {
    if (drop[i]) continue;
    uint32_t start = starts_[i];
    uint32_t end = i + 1 < n ? starts_[i + 1] : uint32_t(code_.size());
    uint32_t ns = uint32_t(code.size());
    targets.clear();
    TargetUnits(ops_[i], start, code_, &targets);
    for (uint32_t u : targets) {
      uint32_t target = uint32_t(int64_t(start) + code_[u]);
      code_[u] = int32_t(int64_t(map(target)) - int64_t(ns));
    }
    code.insert(code.end(), code_.begin() + start, code_.begin() + end);
    starts.push_back(ns);
    ops.push_back(ops_[i]);
  }
  code_ = std::move(code);
  starts_ = std::move(starts);
  ops_ = std::move(ops);
}

Result<CompiledFunctionPtr> FunctionTranslator::Finish() {
  MergeCharges();
  // Fuel operands hold block numbers until here.
  bool too_large = false;
  auto patch = [&](uint32_t unit) {
    uint64_t cost = fuel_cost_[uint32_t(code_[unit])];
    too_large = too_large || cost > UINT32_MAX;
    code_[unit] = int32_t(uint32_t(cost));
  };
  for (size_t i = 0; i < ops_.size(); ++i) {
    uint32_t s = starts_[i];
    IOp op = ops_[i];
    if (op == IOp::Charge) {
      patch(s + 2);
    } else if (op == IOp::Br) {
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
  if (too_large || fuel_cost_[entry_fuel_] > UINT32_MAX) {
    return Error{"function " + std::to_string(index_) + " has a basic block too large to meter"};
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
  f->entry_fuel = uint32_t(fuel_cost_[entry_fuel_]);
  return f;
}

}  // namespace ampoule::wasm::translator
