// Translator: the last steps. Fuel entry points become costs and handler
// addresses are written in.
#include <algorithm>
#include <cstring>
#include <string>

#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {
namespace {

// The pair op running `a` then `b`, or kCount.
IOp PairOf(IOp a, IOp b) {
#define AMP_PAIR_CASE(X, A, B, n) \
  if (a == IOp::A && b == IOp::B) return IOp::A##_##B;
  AMP_PAIRS(AMP_PAIR_CASE, _)
#undef AMP_PAIR_CASE
  return IOp::kCount;
}

// The code units of the instruction at `start` that hold branch targets
// (relative to the start of the instruction that contains them).
void TargetUnits(IOp op, uint32_t start, const std::vector<int32_t>& code, std::vector<uint32_t>* out) {
  if (op == IOp::Br || IsCondBranch(op)) {
    out->push_back(start + 1 + uint32_t(BranchTargetOperand(op)));
  } else if (IsTable(op)) {
    uint32_t first = start + 2 + uint32_t(TableSizeOperand(op));
    uint32_t entries = uint32_t(code[first - 1]) + 1;
    for (uint32_t j = 0; j < entries; ++j) out->push_back(first + 2 * j);
  }
}

}  // namespace

// Joins adjacent instructions that have a pair op into one, unless the
// second is a branch target, and moves every branch target accordingly.
void FunctionTranslator::FormPairs() {
  size_t n = ops_.size();
  std::vector<uint32_t> targets;
  std::vector<bool> is_target(code_.size() + 1, false);
  for (size_t i = 0; i < n; ++i) {
    targets.clear();
    TargetUnits(ops_[i], starts_[i], code_, &targets);
    for (uint32_t u : targets) is_target[size_t(int64_t(starts_[i]) + code_[u])] = true;
  }
  // Greedy, left to right: pair[i] is the pair op joining i and i+1.
  std::vector<IOp> pair(n, IOp::kCount);
  bool any = false;
  for (size_t i = 0; i + 1 < n; ++i) {
    IOp p = PairOf(ops_[i], ops_[i + 1]);
    if (p == IOp::kCount || is_target[starts_[i + 1]]) continue;
    pair[i] = p;
    any = true;
    ++i;
  }
  if (!any) return;

  // New start of every old instruction; the second of a pair maps to the
  // pair (never a target, so only for completeness).
  std::vector<uint32_t> new_start(n + 1);
  uint32_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t end = i + 1 < n ? starts_[i + 1] : uint32_t(code_.size());
    new_start[i] = pos;
    if (pair[i] != IOp::kCount) {
      uint32_t end2 = i + 2 < n ? starts_[i + 2] : uint32_t(code_.size());
      new_start[i + 1] = pos;
      pos += (end - starts_[i]) + (end2 - starts_[i + 1]) - 2;
      ++i;
    } else {
      pos += end - starts_[i];
    }
  }
  new_start[n] = pos;
  auto relocate = [&](uint32_t old_pos) {
    size_t i = std::lower_bound(starts_.begin(), starts_.end(), old_pos) - starts_.begin();
    return new_start[i];
  };

  std::vector<int32_t> code;
  code.reserve(pos);
  std::vector<uint32_t> starts;
  std::vector<IOp> ops;
  // Rewrites the targets of old instruction i relative to `base`, the new
  // start of the instruction that now contains it.
  auto retarget = [&](size_t i, uint32_t base) {
    targets.clear();
    TargetUnits(ops_[i], starts_[i], code_, &targets);
    for (uint32_t u : targets) {
      uint32_t target = uint32_t(int64_t(starts_[i]) + code_[u]);
      code_[u] = int32_t(int64_t(relocate(target)) - int64_t(base));
    }
  };
  auto end_of = [&](size_t i) { return i + 1 < n ? starts_[i + 1] : uint32_t(code_.size()); };
  for (size_t i = 0; i < n; ++i) {
    uint32_t ns = uint32_t(code.size());
    starts.push_back(ns);
    retarget(i, ns);
    code.insert(code.end(), code_.begin() + starts_[i], code_.begin() + end_of(i));
    if (pair[i] != IOp::kCount) {
      // [handler][a's operands][b's operands]
      retarget(i + 1, ns);
      code.insert(code.end(), code_.begin() + starts_[i + 1] + 2, code_.begin() + end_of(i + 1));
      ops.push_back(pair[i]);
      ++i;
    } else {
      ops.push_back(ops_[i]);
    }
  }
  code_ = std::move(code);
  starts_ = std::move(starts);
  ops_ = std::move(ops);
}

core::Result<CompiledFunctionPtr> FunctionTranslator::Finish() {
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
    if (op == IOp::Br || IsCondBranch(op)) {
      uint32_t t = s + 1 + uint32_t(BranchTargetOperand(op));
      patch(t + 1);
      if (op != IOp::Br) patch(t + 2);
    } else if (IsTable(op)) {
      uint32_t first = s + 2 + uint32_t(TableSizeOperand(op));
      uint32_t entries = uint32_t(code_[first - 1]) + 1;
      for (uint32_t j = 0; j < entries; ++j) patch(first + 1 + 2 * j);
    }
  }
  if (too_large) {
    return core::Error{"function " + std::to_string(index_) + " has a straight-line run too large to meter"};
  }
  FormPairs();
  const void* const* handlers = InterpreterHandlers();
  for (size_t i = 0; i < starts_.size(); ++i) {
    std::memcpy(&code_[starts_[i]], &handlers[size_t(ops_[i])], sizeof(void*));
  }

  CompiledFunctionPtr f(new CompiledFunction);
  f->code = std::move(code_);
  f->instr_starts = std::move(starts_);
  f->num_params = uint32_t(type_.params.size());
  f->num_locals = num_locals_ - f->num_params + 1;  // and the zero slot
  f->num_results = uint32_t(type_.results.size());
  f->first_stack_slot = first_stack_;
  f->frame_slots = std::max(first_stack_ + max_height_, f->num_results);
  f->entry_fuel = uint32_t(EntryCost(entry_fuel_));
  return f;
}

}  // namespace ampoule::wasm::translator
