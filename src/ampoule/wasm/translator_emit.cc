// Translator: emitting code units, the compile-time operand stack, fuel entry points.
#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {

uint32_t FunctionTranslator::Begin(IOp op) {
  uint32_t start = uint32_t(code_.size());
  starts_.push_back(start);
  ops_.push_back(op);
  code_.push_back(int32_t(op));  // both replaced by the handler address in Finish()
  code_.push_back(0);
  peephole_unit_ = kNone;
  last_dst_unit_ = kNone;
  return start;
}

uint32_t FunctionTranslator::NewEntry() {
  fuel_entries_.push_back({0, 0});
  return uint32_t(fuel_entries_.size() - 1);
}

void FunctionTranslator::BindEntry(uint32_t entry) {
  if (cur_run_ < 0) {
    run_cost_.push_back(0);
    cur_run_ = int64_t(run_cost_.size() - 1);
  }
  fuel_entries_[entry] = {uint32_t(cur_run_), run_cost_[size_t(cur_run_)]};
}

uint32_t FunctionTranslator::NewRunEntry() {
  run_cost_.push_back(0);
  fuel_entries_.push_back({uint32_t(run_cost_.size() - 1), 0});
  return uint32_t(fuel_entries_.size() - 1);
}

void FunctionTranslator::EnterRun(uint32_t entry) { cur_run_ = fuel_entries_[entry].run; }

uint64_t FunctionTranslator::EntryCost(uint32_t entry) const {
  const FuelEntry& e = fuel_entries_[entry];
  return run_cost_[e.run] - e.prefix;
}

uint32_t FunctionTranslator::StackSlot(uint32_t pos) {
  if (pos + 1 > max_height_) max_height_ = pos + 1;
  return first_stack_ + pos;
}

void FunctionTranslator::SetDst(uint32_t stack_pos) {
  uint32_t unit = uint32_t(code_.size());
  Unit(StackSlot(stack_pos));
  peephole_unit_ = unit;
  peephole_pos_ = stack_pos;
  last_dst_unit_ = unit;
}

bool FunctionTranslator::PeepholeFor(uint32_t stack_pos) const {
  return peephole_unit_ != kNone && peephole_pos_ == stack_pos;
}

void FunctionTranslator::Retarget(uint32_t slot) {
  code_[peephole_unit_] = int32_t(slot);
  peephole_unit_ = kNone;
}

// Fusion with the producer of a value: if the last instruction emitted is
// `op` and wrote stack position `stack_pos` (whose value the caller is now
// consuming, so nothing else reads it), removes that instruction and
// returns its n source operands. Its sources are still intact: nothing has
// been emitted since it ran.
bool FunctionTranslator::TakeProducer(uint32_t stack_pos, IOp op, uint32_t* operands, uint32_t n) {
  if (!PeepholeFor(stack_pos) || ops_.back() != op) return false;
  uint32_t start = starts_.back();
  for (uint32_t i = 0; i < n; ++i) operands[i] = uint32_t(code_[start + 3 + i]);
  code_.resize(start);
  starts_.pop_back();
  ops_.pop_back();
  peephole_unit_ = kNone;
  last_dst_unit_ = kNone;
  return true;
}

void FunctionTranslator::Push(Operand op) {
  if (op.kind == Operand::Kind::kSlot) ++local_refs_[op.slot];
  stack_.push_back(op);
}

Operand FunctionTranslator::Pop() {
  Operand op = stack_.back();
  stack_.pop_back();
  if (op.kind == Operand::Kind::kSlot) --local_refs_[op.slot];
  return op;
}

void FunctionTranslator::Truncate(uint32_t height) {
  while (stack_.size() > height) Pop();
}

void FunctionTranslator::EmitConst(uint32_t dst, uint64_t value) {
  if (value <= UINT32_MAX) {
    Begin(IOp::Const32);
    Unit(dst);
    Unit(uint32_t(value));
  } else {
    Begin(IOp::Const64);
    Unit(dst);
    Unit(uint32_t(value));
    Unit(uint32_t(value >> 32));
  }
}

// Two copies in a row with no label between them become one Copy2.
void FunctionTranslator::EmitCopy(uint32_t dst, uint32_t src) {
  if (!ops_.empty() && ops_.back() == IOp::Copy && label_pos_ != code_.size()) {
    ops_.back() = IOp::Copy2;
    peephole_unit_ = kNone;
    last_dst_unit_ = kNone;
  } else {
    Begin(IOp::Copy);
  }
  Unit(dst);
  Unit(src);
}

void FunctionTranslator::EmitMove(uint32_t dst, const Operand& src) {
  switch (src.kind) {
    case Operand::Kind::kConst:
      if (src.value == 0) {
        EmitCopy(dst, zero_slot_);  // may pair with a neighbouring copy
      } else {
        EmitConst(dst, src.value);
      }
      return;
    case Operand::Kind::kSlot:
      if (src.slot == dst) return;
      EmitCopy(dst, src.slot);
      return;
    case Operand::Kind::kStack:
      return;  // callers handle values already on the stack
  }
}

// The slot an operand can be read from. A constant is first written to its
// own stack slot: `pos` is the position it was popped from, which is free.
uint32_t FunctionTranslator::SlotOf(const Operand& op, uint32_t pos) {
  switch (op.kind) {
    case Operand::Kind::kStack: return StackSlot(pos);
    case Operand::Kind::kSlot: return op.slot;
    case Operand::Kind::kConst: {
      if (op.value == 0) return zero_slot_;
      uint32_t slot = StackSlot(pos);
      EmitConst(slot, op.value);
      return slot;
    }
  }
  return 0;
}

void FunctionTranslator::Materialize(uint32_t pos) {
  Operand& op = stack_[pos];
  if (op.kind == Operand::Kind::kStack) return;
  EmitMove(StackSlot(pos), op);
  if (op.kind == Operand::Kind::kSlot) --local_refs_[op.slot];
  op = Operand{};
}

void FunctionTranslator::MaterializeAll() {
  for (uint32_t i = 0; i < stack_.size(); ++i) Materialize(i);
}

void FunctionTranslator::MaterializeTop(uint32_t n) {
  for (size_t i = stack_.size() - n; i < stack_.size(); ++i) Materialize(uint32_t(i));
}

// Before local `slot` is written, every deferred read of it still on the
// stack must take the old value.
void FunctionTranslator::MaterializeLocal(uint32_t slot) {
  if (local_refs_[slot] == 0) return;
  for (uint32_t i = 0; i < stack_.size(); ++i) {
    if (stack_[i].kind == Operand::Kind::kSlot && stack_[i].slot == slot) Materialize(i);
  }
}

}  // namespace ampoule::wasm::translator
