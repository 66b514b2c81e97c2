// Typing rules for the opcode table's Special rows: control, parametric and
// variable instructions, references, tables and bulk memory (core spec 2.0,
// 3.3, following the appendix's algorithm).
#include <algorithm>
#include <string>

#include "wasm/validator_internal.h"

namespace ampoule::wasm::validator_internal {
namespace {

// Storage for single-value block types, so a frame's result list can point
// at something that outlives it.
constexpr ValType kSingleTypes[] = {ValType::I32,  ValType::I64,     ValType::F32,
                                    ValType::F64,  ValType::V128,    ValType::FuncRef,
                                    ValType::ExternRef};

TypeSpan Single(ValType t) {
  for (const ValType& s : kSingleTypes) {
    if (s == t) return {&s, 1};
  }
  return {};
}

TypeSpan Params(const FuncType& t) { return {t.params.data(), uint32_t(t.params.size())}; }
TypeSpan Results(const FuncType& t) { return {t.results.data(), uint32_t(t.results.size())}; }

bool SameTypes(TypeSpan a, TypeSpan b) {
  return a.size == b.size && std::equal(a.data, a.data + a.size, b.data);
}

std::string Str(TypeSpan t) { return TypesToString({t.data, t.size}); }
std::string Num(uint32_t v) { return std::to_string(v); }

// The spec's C.refs. Decoders list it sorted, so a binary search answers; the
// linear scan keeps the answer right for any order and runs at most once per
// function, just before the error it confirms.
bool IsDeclaredFuncRef(const Module& m, uint32_t func) {
  const std::vector<uint32_t>& refs = m.declared_func_refs;
  if (std::binary_search(refs.begin(), refs.end(), func)) return true;
  return std::find(refs.begin(), refs.end(), func) != refs.end();
}

}  // namespace

bool FuncChecker::Special(const Instr& in) {
  switch (in.op) {
    case Opcode::Unreachable: SetUnreachable(); return true;
    case Opcode::Nop: return true;
    case Opcode::Block: case Opcode::Loop: case Opcode::If: return StartBlock(in);
    case Opcode::Else: return Else();
    case Opcode::End: return End();
    case Opcode::Br: {
      const CtrlFrame* f;
      if (!Label(in.a, &f) || !PopVals(f->labels())) return false;
      SetUnreachable();
      return true;
    }
    case Opcode::BrIf: {
      const CtrlFrame* f;
      if (!Pop(ValType::I32) || !Label(in.a, &f)) return false;
      TypeSpan labels = f->labels();
      if (!PopVals(labels)) return false;
      PushVals(labels);
      return true;
    }
    case Opcode::BrTable: return BrTable(in);
    case Opcode::Return:
      if (!PopVals(ctrls_.front().results)) return false;
      SetUnreachable();
      return true;
    case Opcode::Call: {
      if (in.a >= m_.func_types.size()) return Fail("unknown function " + Num(in.a));
      uint32_t type = m_.func_types[in.a];
      if (type >= m_.types.size()) return Fail("unknown type " + Num(type));
      if (!PopVals(Params(m_.types[type]))) return false;
      PushVals(Results(m_.types[type]));
      return true;
    }
    case Opcode::CallIndirect: return CallIndirect(in);
    case Opcode::Drop: { ValType t; return PopAny(&t); }
    case Opcode::Select: case Opcode::SelectT: return Select(in);
    case Opcode::LocalGet: case Opcode::LocalSet: case Opcode::LocalTee:
    case Opcode::GlobalGet: case Opcode::GlobalSet:
      return Variable(in);
    case Opcode::RefNull: case Opcode::RefIsNull: case Opcode::RefFunc: return Reference(in);
    case Opcode::TableGet: case Opcode::TableSet: case Opcode::TableSize:
    case Opcode::TableGrow: case Opcode::TableFill: case Opcode::TableCopy:
    case Opcode::TableInit: case Opcode::ElemDrop:
      return TableOp(in);
    case Opcode::MemoryInit: case Opcode::DataDrop: case Opcode::MemoryCopy:
    case Opcode::MemoryFill:
      return BulkMemory(in);
    default:
      return Fail(std::string("no typing rule for ") + OpName());
  }
}

bool FuncChecker::BlockTypes(const BlockType& bt, TypeSpan* params, TypeSpan* results) {
  *params = {};
  *results = {};
  switch (bt.kind) {
    case BlockType::Kind::Empty: return true;
    case BlockType::Kind::Value:
      if (bt.value == ValType::V128) {
        simd_ = true;
        return Fail("v128 block type");
      }
      *results = Single(bt.value);
      return results->size == 1 || Fail("malformed block type");
    case BlockType::Kind::TypeIndex:
      if (bt.type_index >= m_.types.size()) return Fail("unknown type " + Num(bt.type_index));
      *params = Params(m_.types[bt.type_index]);
      *results = Results(m_.types[bt.type_index]);
      return true;
  }
  return Fail("malformed block type");
}

bool FuncChecker::StartBlock(const Instr& in) {
  TypeSpan params, results;
  if (in.op == Opcode::If && !Pop(ValType::I32)) return false;
  if (!BlockTypes(in.block, &params, &results) || !PopVals(params)) return false;
  return PushCtrl(in.op, params, results);
}

bool FuncChecker::Else() {
  if (ctrls_.back().op != Opcode::If) return Fail("else without a matching if");
  if (!PopCtrlResults()) return false;
  CtrlFrame& f = ctrls_.back();
  f.op = Opcode::Else;
  f.unreachable = false;
  PushVals(f.params);
  return true;
}

bool FuncChecker::End() {
  if (!PopCtrlResults()) return false;
  CtrlFrame f = ctrls_.back();
  // An if without else has an empty else branch, which passes its params
  // through unchanged: they must already be the results.
  if (f.op == Opcode::If && !SameTypes(f.params, f.results)) {
    return Fail("type mismatch in if without else: param types " + Str(f.params) +
                " differ from result types " + Str(f.results));
  }
  ctrls_.pop_back();
  PushVals(f.results);
  return true;
}

bool FuncChecker::Label(uint32_t depth, const CtrlFrame** frame) {
  if (depth >= ctrls_.size()) return Fail("unknown label " + Num(depth));
  *frame = &ctrls_[ctrls_.size() - 1 - depth];
  return true;
}

bool FuncChecker::BrTable(const Instr& in) {
  if (!Pop(ValType::I32)) return false;
  if (in.b == 0 || uint64_t(in.a) + in.b > code_->br_targets.size()) {
    return Fail("malformed br_table label list");
  }
  const uint32_t* targets = code_->br_targets.data() + in.a;
  const CtrlFrame* def;
  if (!Label(targets[in.b - 1], &def)) return false;
  TypeSpan def_types = def->labels();
  const CtrlFrame& top = ctrls_.back();
  size_t avail = vals_.size() - top.height;
  for (uint32_t i = 0; i + 1 < in.b; ++i) {
    const CtrlFrame* f;
    if (!Label(targets[i], &f)) return false;
    TypeSpan t = f->labels();
    if (t.size != def_types.size) {
      return Fail("type mismatch in br_table: label " + Num(targets[i]) + " carries " +
                  Str(t) + " but the default label carries " + Str(def_types));
    }
    // Check the operands in place; popping and pushing back would do the same.
    for (uint32_t k = 0; k < t.size && (k < avail || !top.unreachable); ++k) {
      ValType want = t.data[t.size - 1 - k];
      if (k >= avail) return Mismatch(want, "nothing");
      ValType got = vals_[vals_.size() - 1 - k];
      if (got != want && got != kUnknown) return Mismatch(want, ValTypeName(got));
    }
  }
  if (!PopVals(def_types)) return false;
  SetUnreachable();
  return true;
}

bool FuncChecker::CallIndirect(const Instr& in) {
  ValType elem;
  if (!CheckTable(in.b, &elem)) return false;
  if (elem != ValType::FuncRef) {
    return Fail("type mismatch in call_indirect: table " + Num(in.b) + " holds " +
                ValTypeName(elem) + ", expected funcref");
  }
  if (in.a >= m_.types.size()) return Fail("unknown type " + Num(in.a));
  const FuncType& type = m_.types[in.a];
  if (!Pop(ValType::I32) || !PopVals(Params(type))) return false;
  PushVals(Results(type));
  return true;
}

bool FuncChecker::Select(const Instr& in) {
  if (in.op == Opcode::SelectT) {
    if (in.a != 1) return Fail("invalid result arity in select: " + Num(in.a) + " types, expected 1");
    if (in.ref == ValType::V128) {
      simd_ = true;
      return Fail("select of v128");
    }
    if (!Pop(ValType::I32) || !Pop(in.ref) || !Pop(in.ref)) return false;
    vals_.push_back(in.ref);
    return true;
  }
  ValType t1, t2;
  if (!Pop(ValType::I32) || !PopAny(&t1) || !PopAny(&t2)) return false;
  if (IsRefType(t1) || IsRefType(t2)) {
    return Fail(std::string("type mismatch in select: operands of type ") +
                ValTypeName(IsRefType(t1) ? t1 : t2) + " need a typed select");
  }
  if (t1 != t2 && t1 != kUnknown && t2 != kUnknown) {
    return Fail(std::string("type mismatch in select: operands ") + ValTypeName(t2) + " and " +
                ValTypeName(t1) + " differ");
  }
  vals_.push_back(t1 == kUnknown ? t2 : t1);
  return true;
}

bool FuncChecker::Variable(const Instr& in) {
  if (in.op == Opcode::GlobalGet || in.op == Opcode::GlobalSet) {
    if (in.a >= m_.global_types.size()) return Fail("unknown global " + Num(in.a));
    const GlobalType& g = m_.global_types[in.a];
    if (in.op == Opcode::GlobalGet) {
      vals_.push_back(g.type);
      return true;
    }
    if (!g.mutable_) return Fail("global is immutable: global.set of global " + Num(in.a));
    return Pop(g.type);
  }
  size_t num_params = type_->params.size();
  if (uint64_t(in.a) >= num_params + locals_->size()) return Fail("unknown local " + Num(in.a));
  ValType t = in.a < num_params ? type_->params[in.a] : (*locals_)[in.a - num_params];
  if (in.op == Opcode::LocalGet) {
    vals_.push_back(t);
    return true;
  }
  if (!Pop(t)) return false;
  if (in.op == Opcode::LocalTee) vals_.push_back(t);
  return true;
}

bool FuncChecker::Reference(const Instr& in) {
  switch (in.op) {
    case Opcode::RefNull:
      if (!IsRefType(in.ref)) return Fail("malformed reference type in ref.null");
      vals_.push_back(in.ref);
      return true;
    case Opcode::RefIsNull: {
      ValType t;
      if (!PopAny(&t)) return false;
      if (t != kUnknown && !IsRefType(t)) {
        return Fail(std::string("type mismatch in ref.is_null: expected a reference, got ") +
                    ValTypeName(t));
      }
      vals_.push_back(ValType::I32);
      return true;
    }
    default:  // RefFunc
      if (in.a >= m_.func_types.size()) return Fail("unknown function " + Num(in.a));
      if (!IsDeclaredFuncRef(m_, in.a)) {
        return Fail("undeclared function reference: function " + Num(in.a) +
                    " must appear in an element segment, export or global initializer");
      }
      vals_.push_back(ValType::FuncRef);
      return true;
  }
}

bool FuncChecker::TableOp(const Instr& in) {
  ValType t, other;
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
    case Opcode::TableCopy:
      if (!CheckTable(in.a, &t) || !CheckTable(in.b, &other)) return false;
      break;
    case Opcode::TableInit:
      if (!CheckTable(in.b, &t) || !CheckElem(in.a, &other)) return false;
      break;
    default:  // ElemDrop
      return CheckElem(in.a, &t);
  }
  if (t != other) {
    return Fail(std::string("type mismatch in ") + OpName() + ": " + ValTypeName(other) +
                " into a table of " + ValTypeName(t));
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
  if (index >= m_.tables.size()) return Fail("unknown table " + Num(index));
  *elem = m_.tables[index].elem;
  return true;
}

bool FuncChecker::CheckElem(uint32_t index, ValType* type) {
  if (index >= m_.elems.size()) return Fail("unknown elem segment " + Num(index));
  *type = m_.elems[index].type;
  return true;
}

bool FuncChecker::CheckData(uint32_t index) {
  // Without data segments no index is valid, and the spec suite expects
  // "unknown data segment" there whether or not a data count section exists.
  if (!m_.data_count && !m_.datas.empty()) {
    return Fail(std::string("data count section required for ") + OpName());
  }
  if (index >= m_.data_count.value_or(0)) return Fail("unknown data segment " + Num(index));
  return true;
}

}  // namespace ampoule::wasm::validator_internal
