// Translator: structured control flow, branches, calls and returns.
//
// Labels: a branch to a block or if jumps forward to the code after its
// `end` (patched when the end is reached); a branch to a loop jumps back to
// the loop body. Branch values move into the label's slots, which are the
// stack slots just above the label's height.
//
// Fuel: a run of input instructions ends only at a control transfer (br,
// br_if, br_table, if, else, return, unreachable); labels do not end it.
// Every edge into a run charges the cost from its entry point to the run's
// end: branches carry the cost of their target (br_if and if of their
// fallthrough too), calls the callee's first run. Falling through a label
// costs nothing more: the run was paid for when it was entered.
#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {
namespace {

// The branch taken when the condition does not hold.
IOp Negate(IOp op) {
  switch (op) {
    case IOp::BrNz: return IOp::BrZ;
    case IOp::BrZ: return IOp::BrNz;
    case IOp::BrNz64: return IOp::BrZ64;
    case IOp::BrZ64: return IOp::BrNz64;
    case IOp::BrTestNz32I: return IOp::BrTestZ32I;
    case IOp::BrTestZ32I: return IOp::BrTestNz32I;
    case IOp::Load32BrNz: return IOp::Load32BrZ;
    case IOp::Load32BrZ: return IOp::Load32BrNz;
    case IOp::Load8UBrNz: return IOp::Load8UBrZ;
    case IOp::Load8UBrZ: return IOp::Load8UBrNz;
    case IOp::Add32IBrNz: return IOp::Add32IBrZ;
    case IOp::Add32IBrZ: return IOp::Add32IBrNz;
    case IOp::Sub32BrNz: return IOp::Sub32BrZ;
    case IOp::Sub32BrZ: return IOp::Sub32BrNz;
    case IOp::And32IBrNz: return IOp::And32IBrZ;
    case IOp::And32IBrZ: return IOp::And32IBrNz;
    default: break;
  }
  // Compare branches come in families of ten in the order
  // Eq Ne LtS LtU GtS GtU LeS LeU GeS GeU.
  static constexpr int kNegated[10] = {1, 0, 8, 9, 6, 7, 4, 5, 2, 3};
  for (IOp base : {IOp::BrEq32, IOp::BrEq32I, IOp::BrEq64}) {
    int k = int(op) - int(base);
    if (k >= 0 && k < 10) return IOp(int(base) + kNegated[k]);
  }
  return op;  // not reached: every branch op is listed above
}

void Patch(std::vector<int32_t>& code, const Ctrl::Fixup& f, uint32_t target) {
  code[f.unit] = int32_t(int64_t(target) - int64_t(f.start));
}

}  // namespace

Cond FunctionTranslator::PopCond() {
  Operand c = Pop();
  Cond cond;
  cond.op = IOp::BrNz;
  cond.a = SlotOf(c, uint32_t(stack_.size()));
  return cond;
}

// A branch on the value the last instruction just wrote (to a stack slot
// or, through local.tee, a local) joins that instruction when a fused form
// exists. Returns the fused op, or kCount.
IOp FunctionTranslator::FuseWithProducer(IOp branch, uint32_t slot) {
  if (last_dst_unit_ == kNone || uint32_t(code_[last_dst_unit_]) != slot) return IOp::kCount;
  bool nz = branch == IOp::BrNz;
  if (!nz && branch != IOp::BrZ) return IOp::kCount;
  switch (ops_.back()) {
    case IOp::Load32: return nz ? IOp::Load32BrNz : IOp::Load32BrZ;
    case IOp::Load8U: return nz ? IOp::Load8UBrNz : IOp::Load8UBrZ;
    case IOp::Add32I: return nz ? IOp::Add32IBrNz : IOp::Add32IBrZ;
    case IOp::Sub32: return nz ? IOp::Sub32BrNz : IOp::Sub32BrZ;
    case IOp::And32I: return nz ? IOp::And32IBrNz : IOp::And32IBrZ;
    default: return IOp::kCount;
  }
}

Ctrl::Fixup FunctionTranslator::EmitCondBranch(const Cond& cond, bool negate, uint32_t ft, uint32_t ff) {
  IOp op = negate ? Negate(cond.op) : cond.op;
  IOp fused = cond.binary ? IOp::kCount : FuseWithProducer(op, cond.a);
  if (fused != IOp::kCount) {
    ops_.back() = fused;
    last_dst_unit_ = kNone;
    peephole_unit_ = kNone;
    Ctrl::Fixup fixup{uint32_t(code_.size()), starts_.back()};
    Unit(0);
    UnitFuel(ft);
    UnitFuel(ff);
    return fixup;
  }
  uint32_t start = Begin(op);
  Unit(cond.a);
  if (cond.binary) Unit(cond.b);
  Ctrl::Fixup fixup{uint32_t(code_.size()), start};
  Unit(0);
  UnitFuel(ft);
  UnitFuel(ff);
  return fixup;
}

void FunctionTranslator::LinkBranch(Ctrl& c, const Ctrl::Fixup& fixup) {
  if (c.kind == Ctrl::Kind::kLoop) {
    Patch(code_, fixup, c.loop_pos);
  } else {
    c.fixups.push_back(fixup);
    c.reached = true;
  }
}

uint32_t FunctionTranslator::TargetFuel(const Ctrl& c) const {
  return c.kind == Ctrl::Kind::kLoop ? c.loop_fuel : c.end_fuel;
}

uint32_t FunctionTranslator::Arity(const Ctrl& c) const {
  return c.kind == Ctrl::Kind::kLoop ? c.sig.params : c.sig.results;
}

bool FunctionTranslator::NeedsMoves(const Ctrl& c) const {
  uint32_t n = Arity(c);
  if (n == 0) return false;
  uint32_t base = uint32_t(stack_.size()) - n;
  if (base != c.height) return true;
  for (uint32_t j = base; j < stack_.size(); ++j) {
    if (stack_[j].kind != Operand::Kind::kStack) return true;
  }
  return false;
}

// Copies the branch values into the label's slots without changing the
// compile-time stack (the code may run on one path only).
void FunctionTranslator::EmitMoves(const Ctrl& c) {
  uint32_t n = Arity(c);
  uint32_t base = uint32_t(stack_.size()) - n;
  for (uint32_t j = 0; j < n; ++j) {
    uint32_t dst = StackSlot(c.height + j);
    const Operand& src = stack_[base + j];
    if (src.kind != Operand::Kind::kStack) {
      EmitMove(dst, src);
    } else if (base + j != c.height + j) {
      EmitCopy(dst, StackSlot(base + j));
    }
  }
}

void FunctionTranslator::EmitBranchTo(Ctrl& c) {
  uint32_t start = Begin(IOp::Br);
  Ctrl::Fixup fixup{uint32_t(code_.size()), start};
  Unit(0);
  UnitFuel(TargetFuel(c));
  LinkBranch(c, fixup);
}

void FunctionTranslator::MarkUnreachable() {
  Ctrl& c = ctrls_.back();
  c.unreachable = true;
  Truncate(c.height);
  cur_run_ = -1;
}

void FunctionTranslator::OnBlock(Ctrl::Kind kind, const BlockType& bt) {
  MaterializeAll();
  Ctrl c;
  c.kind = kind;
  c.sig = Sig(bt);
  c.height = uint32_t(stack_.size()) - c.sig.params;
  if (kind == Ctrl::Kind::kLoop) {
    c.loop_fuel = NewEntry();
    BindEntry(c.loop_fuel);
  } else {
    c.end_fuel = NewEntry();
  }
  c.loop_pos = uint32_t(code_.size());
  BindLabel();
  ctrls_.push_back(std::move(c));
}

void FunctionTranslator::OnIf(const BlockType& bt, const Cond& cond) {
  MaterializeAll();
  Ctrl c;
  c.kind = Ctrl::Kind::kIf;
  c.sig = Sig(bt);
  c.height = uint32_t(stack_.size()) - c.sig.params;
  c.has_else = (label_flags_[pc_] & kHasElse) != 0;
  if (c.sig.params > 0) {
    // The then arm consumes the params in place; the else arm reads copies.
    c.scratch = next_scratch_;
    next_scratch_ += c.sig.params;
    for (uint32_t j = 0; j < c.sig.params; ++j) {
      EmitCopy(c.scratch + j, StackSlot(c.height + j));
    }
  }
  c.end_fuel = NewEntry();
  c.else_fuel = c.has_else ? NewEntry() : c.end_fuel;
  uint32_t then_fuel = NewRunEntry();
  c.else_fixup = EmitCondBranch(cond, /*negate=*/true, c.else_fuel, then_fuel);
  EnterRun(then_fuel);
  ctrls_.push_back(std::move(c));
}

void FunctionTranslator::OnElse() {
  Ctrl& c = ctrls_.back();
  if (!c.unreachable) {
    MaterializeTop(c.sig.results);
    EmitBranchTo(c);
  }
  Patch(code_, c.else_fixup, uint32_t(code_.size()));
  BindLabel();
  Truncate(c.height);
  for (uint32_t j = 0; j < c.sig.params; ++j) {
    Operand op;
    op.kind = Operand::Kind::kSlot;
    op.slot = c.scratch + j;
    Push(op);
  }
  c.unreachable = false;
  c.in_else = true;
  cur_run_ = -1;
  BindEntry(c.else_fuel);  // starts the else arm's run
}

void FunctionTranslator::OnEnd() {
  Ctrl& c = ctrls_.back();
  bool live = !c.unreachable;
  if (c.kind == Ctrl::Kind::kFunc) {
    if (live) {
      if (c.sig.results >= 2) MaterializeTop(c.sig.results);
      EmitReturnSeq();
    }
    ctrls_.pop_back();
    return;
  }
  if (live) MaterializeTop(c.sig.results);
  if (c.kind == Ctrl::Kind::kIf && !c.in_else) {
    c.fixups.push_back(c.else_fixup);  // the false edge skips to the end
    c.reached = true;
  }
  for (const Ctrl::Fixup& f : c.fixups) Patch(code_, f, uint32_t(code_.size()));
  BindLabel();
  // Branches to the end enter here: in the current run if it falls through,
  // else at the start of a new one.
  if (c.kind != Ctrl::Kind::kLoop && c.reached) BindEntry(c.end_fuel);
  Truncate(c.height);
  for (uint32_t j = 0; j < c.sig.results; ++j) PushStack();
  bool reachable = live || c.reached;
  ctrls_.pop_back();
  if (!reachable) MarkUnreachable();
}

void FunctionTranslator::OnBr(uint32_t depth) {
  Ctrl& c = Target(depth);
  if (c.kind == Ctrl::Kind::kFunc) {
    OnReturn();
    return;
  }
  uint32_t top = uint32_t(stack_.size()) - 1;
  if (Arity(c) == 1 && stack_[top].kind == Operand::Kind::kStack && PeepholeFor(top)) {
    Retarget(StackSlot(c.height));  // the producer writes the label slot
  } else {
    EmitMoves(c);
  }
  EmitBranchTo(c);
  MarkUnreachable();
}

void FunctionTranslator::OnBrIf(uint32_t depth, const Cond& cond) {
  Ctrl& c = Target(depth);
  uint32_t fall = NewRunEntry();
  if (c.kind != Ctrl::Kind::kFunc && !NeedsMoves(c)) {
    LinkBranch(c, EmitCondBranch(cond, false, TargetFuel(c), fall));
  } else {
    if (c.kind == Ctrl::Kind::kFunc && c.sig.results >= 2) MaterializeTop(c.sig.results);
    // Skip over the moves when the condition does not hold.
    Ctrl::Fixup skip = EmitCondBranch(cond, /*negate=*/true, fall, kZeroFuel);
    if (c.kind == Ctrl::Kind::kFunc) {
      EmitReturnSeq();
    } else {
      EmitMoves(c);
      EmitBranchTo(c);
    }
    Patch(code_, skip, uint32_t(code_.size()));
    BindLabel();
  }
  EnterRun(fall);
}

void FunctionTranslator::OnBrTable(const Instr& in) {
  uint32_t index_pos = uint32_t(stack_.size()) - 1;
  Operand index = Pop();
  uint32_t index_slot = SlotOf(index, index_pos);
  uint32_t count = in.b;  // entries including the default
  const uint32_t* depths = body_.br_targets.data() + in.a;
  uint32_t arity = Arity(Target(depths[count - 1]));
  if (arity >= 2) MaterializeTop(arity);

  uint32_t start;
  if (last_dst_unit_ != kNone && uint32_t(code_[last_dst_unit_]) == index_slot && ops_.back() == IOp::Load8U) {
    // The index was just loaded: one instruction loads it and jumps.
    ops_.back() = IOp::Load8UBrTable;
    start = starts_.back();
    peephole_unit_ = kNone;
    last_dst_unit_ = kNone;
  } else {
    start = Begin(IOp::BrTable);
    Unit(index_slot);
  }
  Unit(count - 1);
  struct Pending { uint32_t depth, unit; };
  std::vector<Pending> trampolines;
  for (uint32_t j = 0; j < count; ++j) {
    Ctrl& c = Target(depths[j]);
    uint32_t unit = uint32_t(code_.size());
    Unit(0);
    Unit(0);
    if (c.kind == Ctrl::Kind::kFunc || NeedsMoves(c)) {
      trampolines.push_back({depths[j], unit});
      continue;
    }
    code_[unit + 1] = int32_t(TargetFuel(c));
    LinkBranch(c, Ctrl::Fixup{unit, start});
  }
  // Entries that need moves (or return) go through a trampoline, one per
  // distinct label, placed after the table. Their fuel is charged by the
  // trampoline's own branch.
  std::vector<std::pair<uint32_t, uint32_t>> emitted;  // depth -> position
  for (const Pending& p : trampolines) {
    uint32_t pos = UINT32_MAX;
    for (auto& e : emitted) {
      if (e.first == p.depth) pos = e.second;
    }
    if (pos == UINT32_MAX) {
      pos = uint32_t(code_.size());
      emitted.push_back({p.depth, pos});
      BindLabel();
      Ctrl& c = Target(p.depth);
      if (c.kind == Ctrl::Kind::kFunc) {
        EmitReturnSeq();
      } else {
        EmitMoves(c);
        EmitBranchTo(c);
      }
    }
    Patch(code_, Ctrl::Fixup{p.unit, start}, pos);
    code_[p.unit + 1] = int32_t(kZeroFuel);
  }
  MarkUnreachable();
}

}  // namespace ampoule::wasm::translator
