// Typing rules for control instructions: blocks, branches, return and calls
// (core spec 2.0, 3.3.8, following the appendix's algorithm).
#include <algorithm>

#include "ampoule/wasm/validator_internal.h"

namespace ampoule::wasm::validator_internal {
namespace {

// Storage for single-value block types, so a frame's result list can point
// at something that outlives it.
constexpr ValType kSingleTypes[] = {ValType::I32, ValType::I64,     ValType::F32,
                                    ValType::F64, ValType::FuncRef, ValType::ExternRef};

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

}  // namespace

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
      if (bt.type_index >= m_.types.size()) return Fail("unknown type ", bt.type_index);
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
  return PushVals(f.params);
}

bool FuncChecker::End() {
  if (!PopCtrlResults()) return false;
  CtrlFrame f = ctrls_.back();
  // An if without else has an empty else branch, which passes its params
  // through unchanged: they must already be the results.
  if (f.op == Opcode::If && !SameTypes(f.params, f.results)) {
    return Fail("type mismatch in if without else: param types ", Str(f.params),
                " differ from result types ", Str(f.results));
  }
  ctrls_.pop_back();
  if (ctrls_.empty() && cur_ != &code_->instrs.back()) {
    return Fail("instructions after the function's final end");
  }
  return PushVals(f.results);
}

bool FuncChecker::Label(uint32_t depth, const CtrlFrame** frame) {
  if (depth >= ctrls_.size()) return Fail("unknown label ", depth);
  *frame = &ctrls_[ctrls_.size() - 1 - depth];
  return true;
}

bool FuncChecker::Br(const Instr& in) {
  const CtrlFrame* f = nullptr;
  if (!Label(in.a, &f) || !PopVals(f->labels())) return false;
  SetUnreachable();
  return true;
}

bool FuncChecker::BrIf(const Instr& in) {
  const CtrlFrame* f = nullptr;
  if (!Pop(ValType::I32) || !Label(in.a, &f)) return false;
  TypeSpan labels = f->labels();
  return PopVals(labels) && PushVals(labels);
}

bool FuncChecker::BrTable(const Instr& in) {
  if (!Pop(ValType::I32)) return false;
  if (in.b == 0 || uint64_t(in.a) + in.b > code_->br_targets.size()) {
    return Fail("malformed br_table label list");
  }
  const uint32_t* targets = code_->br_targets.data() + in.a;
  const CtrlFrame* def = nullptr;
  if (!Label(targets[in.b - 1], &def)) return false;
  TypeSpan def_types = def->labels();
  const CtrlFrame& top = ctrls_.back();
  size_t avail = vals_.size() - top.height;
  for (uint32_t i = 0; i + 1 < in.b; ++i) {
    const CtrlFrame* f = nullptr;
    if (!Label(targets[i], &f)) return false;
    TypeSpan t = f->labels();
    if (t.size != def_types.size) {
      return Fail("type mismatch in br_table: label ", targets[i], " carries ", Str(t),
                  " but the default label carries ", Str(def_types));
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

bool FuncChecker::Return() {
  if (!PopVals(ctrls_.front().results)) return false;
  SetUnreachable();
  return true;
}

bool FuncChecker::Call(const Instr& in) {
  if (in.a >= m_.func_types.size()) return Fail("unknown function ", in.a);
  uint32_t type = m_.func_types[in.a];
  if (type >= m_.types.size()) return Fail("unknown type ", type);
  return PopVals(Params(m_.types[type])) && PushVals(Results(m_.types[type]));
}

bool FuncChecker::CallIndirect(const Instr& in) {
  ValType elem = kUnknown;
  if (!CheckTable(in.b, &elem)) return false;
  if (elem != ValType::FuncRef) {
    return Fail("type mismatch in call_indirect: table ", in.b, " holds ", ValTypeName(elem),
                ", expected funcref");
  }
  if (in.a >= m_.types.size()) return Fail("unknown type ", in.a);
  const FuncType& type = m_.types[in.a];
  return Pop(ValType::I32) && PopVals(Params(type)) && PushVals(Results(type));
}

}  // namespace ampoule::wasm::validator_internal
