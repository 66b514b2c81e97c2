// Translator: memory instructions. Address arithmetic just computed by an
// i32.add is folded into the load; constant addresses and stored constants
// need no register.
#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {
namespace {

// LoadXAdd is this far after LoadX, and LoadXAddI as far again (the three
// families are laid out in the same order in interpreter_ops.h).
constexpr int kLoadAddDistance = int(IOp::Load32Add) - int(IOp::Load32);
static_assert(int(IOp::Load32AddI) - int(IOp::Load32Add) == kLoadAddDistance);
static_assert(int(IOp::Load32S64AddI) - int(IOp::Load32S64) == 2 * kLoadAddDistance);
// StoreXI is this far after StoreX.
constexpr int kStoreImmDistance = int(IOp::Store32I) - int(IOp::Store32);
static_assert(int(IOp::Store16I) - int(IOp::Store16) == kStoreImmDistance);

bool IsConst(const Operand& op) { return op.kind == Operand::Kind::kConst; }

bool FitsImm32(uint64_t value) {
  int64_t v = int64_t(value);
  return v >= INT32_MIN && v <= INT32_MAX;
}

}  // namespace

bool FunctionTranslator::OnMemory(const Instr& in) {
  IOp load = IOp::kCount, store = IOp::kCount;
  switch (in.op) {
    case Opcode::I32Load: case Opcode::F32Load: case Opcode::I64Load32U: load = IOp::Load32; break;
    case Opcode::I64Load: case Opcode::F64Load: load = IOp::Load64; break;
    case Opcode::I32Load8S: load = IOp::Load8S32; break;
    case Opcode::I32Load8U: case Opcode::I64Load8U: load = IOp::Load8U; break;
    case Opcode::I32Load16S: load = IOp::Load16S32; break;
    case Opcode::I32Load16U: case Opcode::I64Load16U: load = IOp::Load16U; break;
    case Opcode::I64Load8S: load = IOp::Load8S64; break;
    case Opcode::I64Load16S: load = IOp::Load16S64; break;
    case Opcode::I64Load32S: load = IOp::Load32S64; break;
    case Opcode::I32Store: case Opcode::F32Store: case Opcode::I64Store32: store = IOp::Store32; break;
    case Opcode::I64Store: case Opcode::F64Store: store = IOp::Store64; break;
    case Opcode::I32Store8: case Opcode::I64Store8: store = IOp::Store8; break;
    case Opcode::I32Store16: case Opcode::I64Store16: store = IOp::Store16; break;
    default: break;
  }
  uint32_t s[3];
  uint32_t pos;
  if (load != IOp::kCount) {
    // An address computed by i32.add just before is folded into the load.
    pos = uint32_t(stack_.size()) - 1;
    uint32_t sum[2];
    IOp fused = IOp::kCount;
    if (stack_.back().kind == Operand::Kind::kStack) {
      if (TakeProducer(pos, IOp::Add32, sum, 2)) {
        fused = IOp(int(load) + kLoadAddDistance);
      } else if (TakeProducer(pos, IOp::Add32I, sum, 2)) {
        fused = IOp(int(load) + 2 * kLoadAddDistance);
      }
    }
    Operand addr = stack_.back();
    if (fused != IOp::kCount) {
      Pop();
      Begin(fused);
      SetDst(pos);
      Unit(sum[0]);
      Unit(sum[1]);
    } else if (IsConst(addr) && addr.value + in.imm <= UINT32_MAX) {
      // A constant address: 0 + (address + offset), exactly.
      uint64_t ea = Pop().value + in.imm;
      Begin(load);
      SetDst(pos);
      Unit(zero_slot_);
      Unit(uint32_t(ea));
      PushStack();
      return true;
    } else {
      PopSlots(1, s);
      Begin(load);
      SetDst(pos);
      Unit(s[0]);
    }
    Unit(uint32_t(in.imm));
    PushStack();
    return true;
  }
  if (store != IOp::kCount) {
    uint32_t base = uint32_t(stack_.size()) - 2;
    Operand v = Pop();
    Operand addr = Pop();
    uint64_t offset = in.imm;
    uint32_t addr_slot;
    if (IsConst(addr) && addr.value + offset <= UINT32_MAX) {
      addr_slot = zero_slot_;  // a constant address: 0 + (address + offset), exactly
      offset += addr.value;
    } else {
      addr_slot = SlotOf(addr, base);
    }
    bool narrow = store != IOp::Store64;  // the stored bits fit in 32
    if (IsConst(v) && (narrow || FitsImm32(v.value))) {
      Begin(IOp(int(store) + kStoreImmDistance));
      Unit(addr_slot);
      Unit(uint32_t(v.value));
    } else {
      uint32_t value_slot = SlotOf(v, base + 1);
      Begin(store);
      Unit(addr_slot);
      Unit(value_slot);
    }
    Unit(uint32_t(offset));
    return true;
  }
  switch (in.op) {
    case Opcode::MemorySize:
      pos = uint32_t(stack_.size());
      Begin(IOp::MemorySize);
      SetDst(pos);
      PushStack();
      return true;
    case Opcode::MemoryGrow: OnUnary(IOp::MemoryGrow); return true;
    case Opcode::MemoryFill:
    case Opcode::MemoryCopy:
      PopSlots(3, s);
      Begin(in.op == Opcode::MemoryFill ? IOp::MemoryFill : IOp::MemoryCopy);
      for (int i = 0; i < 3; ++i) Unit(s[i]);
      return true;
    case Opcode::MemoryInit:
      PopSlots(3, s);
      Begin(IOp::MemoryInit);
      Unit(in.a);
      for (int i = 0; i < 3; ++i) Unit(s[i]);
      return true;
    case Opcode::DataDrop:
      Begin(IOp::DataDrop);
      Unit(in.a);
      return true;
    default:
      return false;
  }
}

}  // namespace ampoule::wasm::translator
