// Dispatch for the opcode table's Special rows, and the typing rules for
// parametric, variable, reference, table and bulk memory instructions (core
// spec 2.0, 3.3). Control instructions are in validator_control.cc.
#include <algorithm>
#include <string>

#include "ampoule/wasm/validator_internal.h"

namespace ampoule::wasm::validator_internal {
namespace {

// The spec's C.refs. The decoder lists it sorted, so a binary search answers;
// the linear scan keeps the answer right for any order and runs at most once
// per function, just before the error it confirms.
bool IsDeclaredFuncRef(const Module& m, uint32_t func) {
  const std::vector<uint32_t>& refs = m.declared_func_refs;
  if (std::binary_search(refs.begin(), refs.end(), func)) return true;
  return std::find(refs.begin(), refs.end(), func) != refs.end();
}

}  // namespace

// Every case is a call in tail position, so this compiles to a jump table.
bool FuncChecker::Special(const Instr& in) {
  switch (in.op) {
    case Opcode::LocalGet: case Opcode::LocalSet: case Opcode::LocalTee: return Local(in);
    case Opcode::GlobalGet: case Opcode::GlobalSet: return Global(in);
    case Opcode::Block: case Opcode::Loop: case Opcode::If: return StartBlock(in);
    case Opcode::Else: return Else();
    case Opcode::End: return End();
    case Opcode::Br: return Br(in);
    case Opcode::BrIf: return BrIf(in);
    case Opcode::BrTable: return BrTable(in);
    case Opcode::Return: return Return();
    case Opcode::Call: return Call(in);
    case Opcode::CallIndirect: return CallIndirect(in);
    case Opcode::Unreachable: SetUnreachable(); return true;
    case Opcode::Nop: return true;
    case Opcode::Drop: return Drop();
    case Opcode::Select: case Opcode::SelectT: return Select(in);
    case Opcode::RefNull: case Opcode::RefIsNull: case Opcode::RefFunc: return Reference(in);
    case Opcode::TableGet: case Opcode::TableSet: case Opcode::TableSize:
    case Opcode::TableGrow: case Opcode::TableFill: case Opcode::TableCopy:
    case Opcode::TableInit: case Opcode::ElemDrop:
      return TableOp(in);
    case Opcode::MemoryInit: case Opcode::DataDrop: case Opcode::MemoryCopy:
    case Opcode::MemoryFill:
      return BulkMemory(in);
    default:
      return Fail("no typing rule for ", OpName());
  }
}

bool FuncChecker::Drop() {
  ValType t = kUnknown;
  return PopAny(&t);
}

bool FuncChecker::Select(const Instr& in) {
  if (in.op == Opcode::SelectT) {
    if (in.a != 1) return Fail("invalid result arity in select: ", in.a, " types, expected 1");
    if (in.ref == ValType::V128) {
      simd_ = true;
      return Fail("select of v128");
    }
    if (!Pop(ValType::I32) || !Pop(in.ref) || !Pop(in.ref)) return false;
    vals_.push_back(in.ref);
    return true;
  }
  ValType t1 = kUnknown, t2 = kUnknown;
  if (!Pop(ValType::I32) || !PopAny(&t1) || !PopAny(&t2)) return false;
  if (IsRefType(t1) || IsRefType(t2)) {
    return Fail("type mismatch in select: operands of type ",
                ValTypeName(IsRefType(t1) ? t1 : t2), " need a typed select");
  }
  if (t1 != t2 && t1 != kUnknown && t2 != kUnknown) {
    return Fail("type mismatch in select: operands ", ValTypeName(t2), " and ", ValTypeName(t1),
                " differ");
  }
  vals_.push_back(t1 == kUnknown ? t2 : t1);
  return true;
}

bool FuncChecker::Local(const Instr& in) {
  size_t num_params = type_->params.size();
  if (in.a >= num_params + locals_->size()) return Fail("unknown local ", in.a);
  ValType t = in.a < num_params ? type_->params[in.a] : (*locals_)[in.a - num_params];
  if (in.op == Opcode::LocalGet) {
    vals_.push_back(t);
    return true;
  }
  if (!Pop(t)) return false;
  if (in.op == Opcode::LocalTee) vals_.push_back(t);
  return true;
}

bool FuncChecker::Global(const Instr& in) {
  if (in.a >= m_.global_types.size()) return Fail("unknown global ", in.a);
  const GlobalType& g = m_.global_types[in.a];
  if (in.op == Opcode::GlobalGet) {
    vals_.push_back(g.type);
    return true;
  }
  if (!g.mutable_) return Fail("global is immutable: global.set of global ", in.a);
  return Pop(g.type);
}

bool FuncChecker::Reference(const Instr& in) {
  switch (in.op) {
    case Opcode::RefNull:
      if (!IsRefType(in.ref)) return Fail("malformed reference type in ref.null");
      vals_.push_back(in.ref);
      return true;
    case Opcode::RefIsNull: {
      ValType t = kUnknown;
      if (!PopAny(&t)) return false;
      if (t != kUnknown && !IsRefType(t)) {
        return Fail("type mismatch in ref.is_null: expected a reference, got ", ValTypeName(t));
      }
      vals_.push_back(ValType::I32);
      return true;
    }
    default:  // RefFunc
      if (in.a >= m_.func_types.size()) return Fail("unknown function ", in.a);
      if (!IsDeclaredFuncRef(m_, in.a)) {
        return Fail("undeclared function reference: function ", in.a,
                    " must appear in an element segment, export or global initializer");
      }
      vals_.push_back(ValType::FuncRef);
      return true;
  }
}

bool FuncChecker::TableOp(const Instr& in) {
  ValType t = kUnknown, other = kUnknown;
  switch (in.op) {
    case Opcode::TableGet:
      if (!CheckTable(in.a, &t) || !Pop(ValType::I32)) return false;
      vals_.push_back(t);
      return true;
    case Opcode::TableSet:
      return CheckTable(in.a, &t) && Pop(t) && Pop(ValType::I32);
    case Opcode::TableSize:
      if (!CheckTable(in.a, &t)) return false;
      vals_.push_back(ValType::I32);
      return true;
    case Opcode::TableGrow:
      if (!CheckTable(in.a, &t) || !Pop(ValType::I32) || !Pop(t)) return false;
      vals_.push_back(ValType::I32);
      return true;
    case Opcode::TableFill:
      return CheckTable(in.a, &t) && Pop(ValType::I32) && Pop(t) && Pop(ValType::I32);
    case Opcode::TableCopy:  // a = destination, b = source
      if (!CheckTable(in.a, &t) || !CheckTable(in.b, &other)) return false;
      break;
    case Opcode::TableInit:  // a = segment, b = table
      if (!CheckTable(in.b, &t) || !CheckElem(in.a, &other)) return false;
      break;
    default:  // ElemDrop
      return CheckElem(in.a, &t);
  }
  if (t != other) {
    return Fail("type mismatch in ", OpName(), ": ", ValTypeName(other), " into a table of ",
                ValTypeName(t));
  }
  return Pop(ValType::I32) && Pop(ValType::I32) && Pop(ValType::I32);
}

bool FuncChecker::BulkMemory(const Instr& in) {
  if (in.op == Opcode::DataDrop) return CheckData(in.a);
  if (!CheckMemory()) return false;
  if (in.op == Opcode::MemoryInit && !CheckData(in.a)) return false;
  return Pop(ValType::I32) && Pop(ValType::I32) && Pop(ValType::I32);
}

bool FuncChecker::CheckTable(uint32_t index, ValType* elem) {
  if (index >= m_.tables.size()) return Fail("unknown table ", index);
  *elem = m_.tables[index].elem;
  return true;
}

bool FuncChecker::CheckElem(uint32_t index, ValType* type) {
  if (index >= m_.elems.size()) return Fail("unknown elem segment ", index);
  *type = m_.elems[index].type;
  return true;
}

bool FuncChecker::CheckData(uint32_t index) {
  // Without data segments no index is valid, and the spec suite expects
  // "unknown data segment" there whether or not a data count section exists.
  if (!m_.data_count && !m_.datas.empty()) {
    return Fail("data count section required for ", OpName());
  }
  if (index >= m_.data_count.value_or(0)) return Fail("unknown data segment ", index);
  return true;
}

}  // namespace ampoule::wasm::validator_internal
