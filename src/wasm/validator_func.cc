// ValidateFunction: type-checks one function body with the operand-stack and
// control-stack algorithm from the core spec's appendix ("Validation
// Algorithm"), in one pass over the decoded instructions.
//
// Plain numeric and memory instructions are typed from the opcode table's
// signature column (GetOpcodeInfo(op).sig); only the Special rows (control,
// variables, references, tables, bulk memory) are typed by hand, in
// validator_special.cc.
//
// The stacks are thread-local and reused from one function to the next, so a
// module's validation allocates only when a body needs deeper stacks than any
// before it on that thread.
#include "wasm/validator_internal.h"

#include <algorithm>

#include "wasm/validator.h"

namespace ampoule::wasm {
namespace validator_internal {
namespace {

// A plain instruction's stack effect, decoded from its Sig name ("i_ll" is
// (i64, i64) -> i32; "v_" means no result).
struct Shape {
  uint8_t num_params = 0;
  ValType params[2] = {ValType::I32, ValType::I32};
  ValType result = kUnknown;  // kUnknown: no result
};

constexpr ValType LetterType(char c) {
  switch (c) {
    case 'i': return ValType::I32;
    case 'l': return ValType::I64;
    case 'f': return ValType::F32;
    case 'd': return ValType::F64;
  }
  return kUnknown;  // 'v'
}

constexpr Shape ParseShape(const char* s) {
  Shape shape;
  shape.result = LetterType(s[0]);
  for (const char* p = s + 2; *p; ++p) shape.params[shape.num_params++] = LetterType(*p);
  return shape;
}

#define AMP_PLAIN_SIGS(X)                                                                 \
  X(i_) X(l_) X(f_) X(d_) X(i_i) X(i_l) X(i_f) X(i_d) X(l_i) X(l_l) X(l_f) X(l_d) X(f_i) \
  X(f_l) X(f_f) X(f_d) X(d_i) X(d_l) X(d_f) X(d_d) X(i_ii) X(i_ll) X(i_ff) X(i_dd)        \
  X(l_ll) X(f_ff) X(d_dd) X(v_ii) X(v_il) X(v_if) X(v_id)

constexpr Shape ShapeOf(Sig sig) {
  switch (sig) {
#define AMP_SHAPE_CASE(name) \
  case Sig::name: return ParseShape(#name);
    AMP_PLAIN_SIGS(AMP_SHAPE_CASE)
#undef AMP_SHAPE_CASE
    case Sig::Special: break;
  }
  return Shape{};
}

constexpr size_t kNumSigs = size_t(Sig::v_id) + 1;

struct ShapeTable {
  Shape shapes[kNumSigs];
};

constexpr ShapeTable BuildShapes() {
  ShapeTable t{};
  for (size_t i = 0; i < kNumSigs; ++i) t.shapes[i] = ShapeOf(Sig(i));
  return t;
}
constexpr ShapeTable kShapes = BuildShapes();
static_assert(kShapes.shapes[size_t(Sig::i_ll)].num_params == 2);
static_assert(kShapes.shapes[size_t(Sig::v_id)].result == kUnknown);

// log2 of the access width: the largest alignment a memarg may declare.
uint32_t NaturalAlignment(Opcode op) {
  switch (op) {
    case Opcode::I32Load8S: case Opcode::I32Load8U: case Opcode::I64Load8S:
    case Opcode::I64Load8U: case Opcode::I32Store8: case Opcode::I64Store8:
      return 0;
    case Opcode::I32Load16S: case Opcode::I32Load16U: case Opcode::I64Load16S:
    case Opcode::I64Load16U: case Opcode::I32Store16: case Opcode::I64Store16:
      return 1;
    case Opcode::I32Load: case Opcode::F32Load: case Opcode::I64Load32S:
    case Opcode::I64Load32U: case Opcode::I32Store: case Opcode::F32Store:
    case Opcode::I64Store32:
      return 2;
    default:
      return 3;  // i64/f64 load and store
  }
}

thread_local FuncStacks tls_stacks;

// After a huge body, give the memory back rather than keeping it for the
// life of the thread.
void TrimStacks(FuncStacks& s) {
  constexpr size_t kKeepVals = 1u << 16, kKeepCtrls = 1u << 12;
  if (s.vals.capacity() > kKeepVals) std::vector<ValType>().swap(s.vals);
  if (s.ctrls.capacity() > kKeepCtrls) std::vector<CtrlFrame>().swap(s.ctrls);
}

}  // namespace

const char* TypeName(ValType t) { return t == kUnknown ? "any" : ValTypeName(t); }

FuncChecker::FuncChecker(const Module& module, uint32_t index, FuncStacks& stacks)
    : m_(module), index_(index), vals_(stacks.vals), ctrls_(stacks.ctrls) {
  vals_.clear();
  ctrls_.clear();
}

bool FuncChecker::Fail(std::string what) {
  if (error_.empty()) error_ = std::move(what);
  return false;
}

bool FuncChecker::Mismatch(ValType expected, const char* got) {
  return Fail(std::string("type mismatch in ") + OpName() + ": expected " + TypeName(expected) +
              ", got " + got);
}

bool FuncChecker::Pop(ValType expected) {
  const CtrlFrame& f = ctrls_.back();
  if (vals_.size() == f.height) {
    if (f.unreachable) return true;
    return Mismatch(expected, "nothing");
  }
  ValType got = vals_.back();
  vals_.pop_back();
  if (got == expected || got == kUnknown || expected == kUnknown) return true;
  return Mismatch(expected, ValTypeName(got));
}

bool FuncChecker::PopAny(ValType* out) {
  const CtrlFrame& f = ctrls_.back();
  if (vals_.size() == f.height) {
    *out = kUnknown;
    if (f.unreachable) return true;
    return Fail(std::string("type mismatch in ") + OpName() + ": expected a value, got nothing");
  }
  *out = vals_.back();
  vals_.pop_back();
  return true;
}

bool FuncChecker::PopVals(TypeSpan types) {
  for (uint32_t i = types.size; i-- > 0;) {
    if (!Pop(types.data[i])) return false;
  }
  return true;
}

void FuncChecker::PushVals(TypeSpan types) {
  vals_.insert(vals_.end(), types.data, types.data + types.size);
}

bool FuncChecker::PushCtrl(Opcode op, TypeSpan params, TypeSpan results) {
  if (ctrls_.size() >= kMaxControlDepth) {
    return Fail("blocks nested too deeply (implementation limit " +
                std::to_string(kMaxControlDepth) + ")");
  }
  ctrls_.push_back(CtrlFrame{op, false, uint32_t(vals_.size()), params, results});
  PushVals(params);
  return true;
}

bool FuncChecker::PopCtrlResults() {
  const CtrlFrame& f = ctrls_.back();
  if (!PopVals(f.results)) return false;
  if (vals_.size() != f.height) {
    return Fail(std::string("type mismatch in ") + OpName() + ": block with result type " +
                TypesToString({f.results.data, f.results.size}) + " leaves " +
                std::to_string(vals_.size() - f.height) + " extra value(s) on the stack");
  }
  return true;
}

void FuncChecker::SetUnreachable() {
  CtrlFrame& f = ctrls_.back();
  vals_.resize(f.height);
  f.unreachable = true;
}

bool FuncChecker::CheckMemory() {
  if (m_.memories.empty()) return Fail(std::string("unknown memory 0 in ") + OpName());
  return true;
}

bool FuncChecker::Plain(const Instr& in, const OpcodeInfo& info) {
  if (info.imm == ImmKind::MemArg) {
    if (!CheckMemory()) return false;
    uint32_t natural = NaturalAlignment(in.op);
    if (in.a > natural) {
      return Fail(std::string("alignment must not be larger than natural in ") + info.text +
                  ": 2^" + std::to_string(in.a) + " > " + std::to_string(1u << natural));
    }
  } else if (info.imm == ImmKind::Memory) {
    if (!CheckMemory()) return false;
  }
  const Shape& s = kShapes.shapes[size_t(info.sig)];
  for (uint32_t i = s.num_params; i-- > 0;) {
    if (!Pop(s.params[i])) return false;
  }
  if (s.result != kUnknown) vals_.push_back(s.result);
  return true;
}

Status FuncChecker::Run(const FunctionCode& code) {
  uint32_t func_index = m_.num_imported_funcs + index_;
  std::string where = "function " + std::to_string(func_index);
  if (index_ >= m_.functions.size()) return Invalid(where, 0, "unknown function");
  const FunctionBody& body = m_.functions[index_];
  if (body.type >= m_.types.size()) {
    return Invalid(where, body.code_begin, "unknown type " + std::to_string(body.type));
  }
  code_ = &code;
  type_ = &m_.types[body.type];
  locals_ = &body.locals;
  for (ValType t : body.locals) {
    if (t == ValType::V128) return UnsupportedSimd(where, body.code_begin, "v128 local");
  }
  TypeSpan results{type_->results.data(), uint32_t(type_->results.size())};
  ctrls_.push_back(CtrlFrame{Opcode::Block, false, 0, {}, results});

  for (const Instr& in : code.instrs) {
    cur_ = &in;
    bool ok;
    if (ctrls_.empty()) {
      ok = Fail("instructions after the function's final end");
    } else {
      const OpcodeInfo& info = GetOpcodeInfo(in.op);
      ok = info.sig == Sig::Special ? Special(in) : Plain(in, info);
      if (ok && vals_.size() > kMaxOperandStackHeight) {
        ok = Fail("operand stack too high (implementation limit " +
                  std::to_string(kMaxOperandStackHeight) + " values)");
      }
    }
    if (!ok) {
      if (simd_) return UnsupportedSimd(where, in.offset, error_);
      return Invalid(where, in.offset, error_);
    }
  }
  if (!ctrls_.empty()) return Invalid(where, body.code_end, "function body does not end with end");
  return Status::Ok();
}

const char* FuncChecker::OpName() const {
  return cur_ ? GetOpcodeInfo(cur_->op).text : "function";
}

}  // namespace validator_internal

Status ValidateFunction(const Module& module, uint32_t index, const FunctionCode& code) {
  validator_internal::FuncStacks& stacks = validator_internal::tls_stacks;
  Status status = validator_internal::FuncChecker(module, index, stacks).Run(code);
  validator_internal::TrimStacks(stacks);
  return status;
}

}  // namespace ampoule::wasm
