// Translator: operators. Operands are read straight from locals and
// constants (the compile-time stack), a constant operand selects the
// immediate form of an operation, and an integer comparison (or eqz, or a
// mask test) immediately followed by br_if or if becomes one
// compare-and-branch.
#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {
namespace {

// Comparison kinds, in the order of the internal compare families.
enum Cmp { kEq, kNe, kLtS, kLtU, kGtS, kGtU, kLeS, kLeU, kGeS, kGeU };

// a <op> b  ==  b <swapped op> a
constexpr int kSwapped[10] = {kEq, kNe, kGtS, kGtU, kLtS, kLtU, kGeS, kGeU, kLeS, kLeU};

IOp Family(IOp base, int kind) { return IOp(int(base) + kind); }

bool FitsImm(uint64_t value, bool is64) {
  if (!is64) return true;
  int64_t v = int64_t(value);
  return v >= INT32_MIN && v <= INT32_MAX;
}

bool IsConst(const Operand& op) { return op.kind == Operand::Kind::kConst; }


}  // namespace

void FunctionTranslator::AddFuel(const Instr& in) {
  if (cur_run_ >= 0) run_cost_[size_t(cur_run_)] += GetOpcodeInfo(in.op).fuel;
}

// Pops n operands; out[i] is the slot of the i-th (bottom first).
void FunctionTranslator::PopSlots(uint32_t n, uint32_t* out) {
  uint32_t base = uint32_t(stack_.size()) - n;
  for (uint32_t i = n; i-- > 0;) {
    Operand op = Pop();
    out[i] = SlotOf(op, base + i);
  }
}

void FunctionTranslator::OnUnary(IOp op) {
  uint32_t a;
  PopSlots(1, &a);
  uint32_t pos = uint32_t(stack_.size());
  Begin(op);
  SetDst(pos);
  Unit(a);
  PushStack();
}

void FunctionTranslator::OnUnaryImm(IOp op, uint32_t k) {
  uint32_t a;
  PopSlots(1, &a);
  uint32_t pos = uint32_t(stack_.size());
  Begin(op);
  SetDst(pos);
  Unit(a);
  Unit(k);
  PushStack();
}

// rr: d a b. ri: d a k, used when b is a constant that fits. ri_swapped:
// d b k, used when a is such a constant (kCount when there is none).
void FunctionTranslator::OnBinary(IOp rr, IOp ri, IOp ri_swapped, bool is64) {
  Operand b = Pop();
  Operand a = Pop();
  uint32_t pos = uint32_t(stack_.size());
  if (ri != IOp::kCount && IsConst(b) && FitsImm(b.value, is64)) {
    uint32_t sa = SlotOf(a, pos);
    Begin(ri);
    SetDst(pos);
    Unit(sa);
    Unit(uint32_t(b.value));
  } else if (ri_swapped != IOp::kCount && IsConst(a) && !IsConst(b) && FitsImm(a.value, is64)) {
    uint32_t sb = SlotOf(b, pos + 1);
    Begin(ri_swapped);
    SetDst(pos);
    Unit(sb);
    Unit(uint32_t(a.value));
  } else {
    uint32_t sa = SlotOf(a, pos);
    uint32_t sb = SlotOf(b, pos + 1);
    Begin(rr);
    SetDst(pos);
    Unit(sa);
    Unit(sb);
  }
  PushStack();
}

// x - k becomes x + (-k).
void FunctionTranslator::OnSub(bool is64) {
  Operand& b = stack_.back();
  if (IsConst(b)) {
    uint64_t neg = is64 ? 0 - b.value : uint32_t(0 - uint32_t(b.value));
    if (FitsImm(neg, is64)) {
      b.value = neg;
      if (is64) {
        OnBinary(IOp::Add64, IOp::Add64I, IOp::kCount, true);
      } else {
        OnBinary(IOp::Add32, IOp::Add32I, IOp::kCount, false);
      }
      return;
    }
  }
  if (is64) {
    OnBinary(IOp::Sub64, IOp::kCount, IOp::kCount, true);
  } else {
    OnBinary(IOp::Sub32, IOp::kCount, IOp::kCount, false);
  }
}

bool FunctionTranslator::NextIsBranch() const {
  if (pc_ + 1 >= body_.instrs.size()) return false;
  Opcode next = body_.instrs[pc_ + 1].op;
  return next == Opcode::BrIf || next == Opcode::If;
}

// Consumes the br_if or if that follows, with `cond` as its condition.
void FunctionTranslator::FuseBranch(const Cond& cond) {
  ++pc_;
  const Instr& next = body_.instrs[pc_];
  AddFuel(next);
  if (next.op == Opcode::BrIf) {
    OnBrIf(next.a, cond);
  } else {
    OnIf(next.block, cond);
  }
}

void FunctionTranslator::OnIntCompare(int kind, bool is64) {
  bool fuse = NextIsBranch();
  Operand b = Pop();
  Operand a = Pop();
  uint32_t pos = uint32_t(stack_.size());
  // 64-bit compare-and-branch exists only with two slots.
  bool imm_ok = !(fuse && is64);
  Cond cond;
  cond.binary = true;
  bool imm = false;
  if (imm_ok && IsConst(b) && FitsImm(b.value, is64)) {
    cond.a = SlotOf(a, pos);
    cond.b = uint32_t(b.value);
    imm = true;
  } else if (imm_ok && IsConst(a) && FitsImm(a.value, is64)) {
    kind = kSwapped[kind];
    cond.a = SlotOf(b, pos + 1);
    cond.b = uint32_t(a.value);
    imm = true;
  } else {
    cond.a = SlotOf(a, pos);
    cond.b = SlotOf(b, pos + 1);
  }
  if (fuse) {
    cond.op = Family(is64 ? IOp::BrEq64 : imm ? IOp::BrEq32I : IOp::BrEq32, kind);
    FuseBranch(cond);
    return;
  }
  IOp base = is64 ? (imm ? IOp::Eq64I : IOp::Eq64) : (imm ? IOp::Eq32I : IOp::Eq32);
  Begin(Family(base, kind));
  SetDst(pos);
  Unit(cond.a);
  Unit(cond.b);
  PushStack();
}

void FunctionTranslator::OnEqz(bool is64) {
  if (!NextIsBranch()) {
    OnUnary(is64 ? IOp::Eqz64 : IOp::Eqz32);
    return;
  }
  Cond cond;
  uint32_t pos = uint32_t(stack_.size()) - 1;
  uint32_t mask[2];
  if (!is64 && stack_.back().kind == Operand::Kind::kStack && TakeProducer(pos, IOp::And32I, mask, 2)) {
    // (x & k) == 0
    Pop();
    cond.op = IOp::BrTestZ32I;
    cond.a = mask[0];
    cond.b = mask[1];
    cond.binary = true;
  } else {
    PopSlots(1, &cond.a);
    cond.op = is64 ? IOp::BrZ64 : IOp::BrZ;
  }
  FuseBranch(cond);
}

// (x << 24) >> 24 and (x << 16) >> 16 (signed) sign-extend x's low byte or
// half: code built without the sign-extension instructions does this.
bool FunctionTranslator::OnSignExtendShift() {
  const Operand& k = stack_.back();
  uint32_t shift = uint32_t(k.value) & 31;
  if (!IsConst(k) || (shift != 24 && shift != 16)) return false;
  uint32_t pos = uint32_t(stack_.size()) - 2;
  if (stack_[pos].kind != Operand::Kind::kStack || !PeepholeFor(pos) || ops_.back() != IOp::Shl32I ||
      (uint32_t(code_[starts_.back() + 4]) & 31) != shift) {
    return false;
  }
  uint32_t shl[2];
  TakeProducer(pos, IOp::Shl32I, shl, 2);
  Pop();
  Pop();
  Begin(shift == 24 ? IOp::Extend8S32 : IOp::Extend16S32);
  SetDst(pos);
  Unit(shl[0]);
  PushStack();
  return true;
}

// i32.and with a constant, then br_if or if: branch on (x & k) != 0.
bool FunctionTranslator::OnAndBranch() {
  if (!NextIsBranch() || !IsConst(stack_.back())) return false;
  Operand k = Pop();
  Cond cond;
  PopSlots(1, &cond.a);
  cond.op = IOp::BrTestNz32I;
  cond.b = uint32_t(k.value);
  cond.binary = true;
  FuseBranch(cond);
  return true;
}

void FunctionTranslator::OnSelect() {
  // A non-zero 32-bit constant for one of the values is an immediate.
  size_t n = stack_.size();
  auto imm = [](const Operand& op) { return IsConst(op) && op.value != 0 && op.value <= UINT32_MAX; };
  IOp op = IOp::Select;
  if (imm(stack_[n - 3]) && !imm(stack_[n - 2])) op = IOp::SelectK1;
  if (imm(stack_[n - 2]) && op == IOp::Select) op = IOp::SelectK2;
  uint32_t k = 0;
  if (op == IOp::SelectK1) k = uint32_t(stack_[n - 3].value);
  if (op == IOp::SelectK2) k = uint32_t(stack_[n - 2].value);
  if (op != IOp::Select) {
    // The constant's slot is never read: it only needs a placeholder.
    Operand& c = stack_[op == IOp::SelectK1 ? n - 3 : n - 2];
    c = Operand{Operand::Kind::kConst, 0, 0};
  }
  uint32_t s[3];
  PopSlots(3, s);
  if (op == IOp::SelectK1) s[0] = k;
  if (op == IOp::SelectK2) s[1] = k;
  uint32_t pos = uint32_t(stack_.size());
  Begin(op);
  SetDst(pos);
  Unit(s[0]);
  Unit(s[1]);
  Unit(s[2]);
  PushStack();
}

}  // namespace ampoule::wasm::translator
