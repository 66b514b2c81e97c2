// Translator: locals, globals, constants, references and tables. local.get
// and constants emit nothing: they stay on the compile-time stack until a
// consumer reads them where they are.
#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {

void FunctionTranslator::OnLocalSet(uint32_t x, bool tee) {
  uint32_t pos = uint32_t(stack_.size()) - 1;
  Operand v = Pop();
  MaterializeLocal(x);  // deferred reads of x take the old value first
  if (v.kind == Operand::Kind::kStack) {
    if (PeepholeFor(pos)) {
      Retarget(x);
    } else {
      EmitCopy(x, StackSlot(pos));
    }
  } else {
    EmitMove(x, v);
  }
  if (!tee) return;
  if (v.kind == Operand::Kind::kConst) {
    Push(v);
  } else {
    Operand op;
    op.kind = Operand::Kind::kSlot;
    op.slot = x;
    Push(op);
  }
}

bool FunctionTranslator::OnVariable(const Instr& in) {
  uint32_t s[5];
  uint32_t pos;
  switch (in.op) {
    case Opcode::LocalGet: {
      Operand op;
      op.kind = Operand::Kind::kSlot;
      op.slot = in.a;
      Push(op);
      return true;
    }
    case Opcode::LocalSet: OnLocalSet(in.a, false); return true;
    case Opcode::LocalTee: OnLocalSet(in.a, true); return true;
    case Opcode::I32Const:
    case Opcode::I64Const:
    case Opcode::F32Const:
    case Opcode::F64Const: {
      Operand op;
      op.kind = Operand::Kind::kConst;
      op.value = in.imm;
      Push(op);
      return true;
    }
    case Opcode::RefNull: {
      Operand op;
      op.kind = Operand::Kind::kConst;
      Push(op);
      return true;
    }
    case Opcode::GlobalGet: {
      ValType t = module_.global_types[in.a].type;
      bool narrow = t == ValType::I32 || t == ValType::F32;
      pos = uint32_t(stack_.size());
      Begin(narrow ? IOp::GlobalGet32 : IOp::GlobalGet64);
      SetDst(pos);
      Unit(in.a);
      PushStack();
      return true;
    }
    case Opcode::GlobalSet:
      PopSlots(1, s);
      Begin(IOp::GlobalSet);
      Unit(in.a);
      Unit(s[0]);
      return true;
    case Opcode::RefIsNull: OnUnary(IOp::Eqz64); return true;
    case Opcode::RefFunc:
      pos = uint32_t(stack_.size());
      Begin(IOp::RefFunc);
      SetDst(pos);
      Unit(in.a);
      PushStack();
      return true;
    case Opcode::TableGet:
      PopSlots(1, s);
      pos = uint32_t(stack_.size());
      Begin(IOp::TableGet);
      SetDst(pos);
      Unit(in.a);
      Unit(s[0]);
      PushStack();
      return true;
    case Opcode::TableSet:
      PopSlots(2, s);
      Begin(IOp::TableSet);
      Unit(in.a);
      Unit(s[0]);
      Unit(s[1]);
      return true;
    case Opcode::TableSize:
      pos = uint32_t(stack_.size());
      Begin(IOp::TableSize);
      SetDst(pos);
      Unit(in.a);
      PushStack();
      return true;
    case Opcode::TableGrow:
      PopSlots(2, s);  // init, delta
      pos = uint32_t(stack_.size());
      Begin(IOp::TableGrow);
      SetDst(pos);
      Unit(in.a);
      Unit(s[0]);
      Unit(s[1]);
      PushStack();
      return true;
    case Opcode::TableFill:
      PopSlots(3, s);  // start, value, n
      Begin(IOp::TableFill);
      Unit(in.a);
      for (int i = 0; i < 3; ++i) Unit(s[i]);
      return true;
    case Opcode::TableCopy:
      PopSlots(3, s);  // d, s, n
      Begin(IOp::TableCopy);
      Unit(in.a);
      Unit(in.b);
      for (int i = 0; i < 3; ++i) Unit(s[i]);
      return true;
    case Opcode::TableInit:
      PopSlots(3, s);
      Begin(IOp::TableInit);
      Unit(in.b);  // table
      Unit(in.a);  // element segment
      for (int i = 0; i < 3; ++i) Unit(s[i]);
      return true;
    case Opcode::ElemDrop:
      Begin(IOp::ElemDrop);
      Unit(in.a);
      return true;
    default:
      return false;
  }
}

}  // namespace ampoule::wasm::translator
