// Translator: calls and returns.
//
// A callee's frame starts at its first argument slot in the caller, so the
// arguments are in place as its parameters and its results come back in
// the same slots. A return copies the results to the frame's first slots.
#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {

// REQUIRES: with two or more results, they are materialised. Leaves the
// compile-time stack unchanged.
void FunctionTranslator::EmitReturnSeq() {
  uint32_t n = uint32_t(type_.results.size());
  if (n == 0) {
    Begin(IOp::Return);
    return;
  }
  uint32_t pos = uint32_t(stack_.size()) - n;
  if (n == 1) {
    const Operand& top = stack_.back();
    uint32_t slot = 0;
    switch (top.kind) {
      case Operand::Kind::kStack:
        if (PeepholeFor(pos)) {
          Retarget(0);
        } else {
          slot = StackSlot(pos);
        }
        break;
      case Operand::Kind::kSlot: slot = top.slot; break;
      case Operand::Kind::kConst: EmitConst(0, top.value); break;
    }
    if (slot == 0) {
      Begin(IOp::Return);
    } else {
      Begin(IOp::Return1);
      Unit(slot);
    }
    return;
  }
  uint32_t start = StackSlot(pos);
  if (start == 0) {
    Begin(IOp::Return);
  } else {
    Begin(IOp::ReturnN);
    Unit(n);
    Unit(start);
  }
}

void FunctionTranslator::OnReturn() {
  uint32_t n = uint32_t(type_.results.size());
  if (n >= 2) MaterializeTop(n);
  EmitReturnSeq();
  MarkUnreachable();
}

// Arguments still in locals are listed in the call, which copies them;
// constants are written to their argument slots first.
void FunctionTranslator::EmitCall(IOp plain, IOp with_args, std::initializer_list<uint32_t> head,
                                  uint32_t np, uint32_t nr) {
  uint32_t base = uint32_t(stack_.size()) - np;
  bool any_local = false;
  auto from_zero = [](const Operand& op) { return op.kind == Operand::Kind::kConst && op.value == 0; };
  for (uint32_t j = base; j < stack_.size(); ++j) {
    if (stack_[j].kind == Operand::Kind::kConst && !from_zero(stack_[j])) Materialize(j);
    any_local = any_local || stack_[j].kind != Operand::Kind::kStack;
  }
  Begin(any_local ? with_args : plain);
  for (uint32_t u : head) Unit(u);
  if (any_local) {
    Unit(np);
    for (uint32_t j = base; j < stack_.size(); ++j) {
      const Operand& op = stack_[j];
      Unit(op.kind == Operand::Kind::kSlot ? op.slot : from_zero(op) ? zero_slot_ : StackSlot(j));
    }
  }
  Truncate(base);
  if (nr > 0) StackSlot(base + nr - 1);
  for (uint32_t j = 0; j < nr; ++j) PushStack();
}

void FunctionTranslator::OnCall(uint32_t func) {
  const FuncType& ft = module_.func_type(func);
  uint32_t np = uint32_t(ft.params.size());
  uint32_t base = uint32_t(stack_.size()) - np;
  EmitCall(IOp::Call, IOp::CallArgs, {func, StackSlot(base)}, np, uint32_t(ft.results.size()));
}

void FunctionTranslator::OnCallIndirect(uint32_t type_index, uint32_t table) {
  const FuncType& ft = module_.types[type_index];
  uint32_t np = uint32_t(ft.params.size());
  Operand index = Pop();
  uint32_t index_slot = SlotOf(index, uint32_t(stack_.size()));
  uint32_t base = uint32_t(stack_.size()) - np;
  EmitCall(IOp::CallIndirect, IOp::CallIndirectArgs, {type_index, table, StackSlot(base), index_slot}, np,
           uint32_t(ft.results.size()));
}

}  // namespace ampoule::wasm::translator
