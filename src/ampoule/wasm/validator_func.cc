// ValidateFunction: type-checks one function body with the operand-stack and
// control-stack algorithm from the core spec's appendix ("Validation
// Algorithm"), in one pass over the decoded instructions.
//
// Plain numeric and memory instructions are typed from the opcode table's
// signature column (the `sig` of opcodes.def, compiled into kOpShapes); only
// the Special rows are typed by hand, in validator_control.cc (blocks,
// branches, calls) and validator_special.cc (variables, references, tables,
// bulk memory).
//
// The stacks are thread-local and reused from one function to the next, so a
// module's validation allocates only when a body needs deeper stacks than any
// before it on that thread; nothing is allocated per instruction.
#include "ampoule/wasm/validator_internal.h"

#include <algorithm>

#include "ampoule/wasm/validator.h"

namespace ampoule::wasm {
namespace validator_internal {
namespace {

constexpr ValType LetterType(char c) {
  switch (c) {
    case 'i': return ValType::I32;
    case 'l': return ValType::I64;
    case 'f': return ValType::F32;
    case 'd': return ValType::F64;
  }
  return kUnknown;  // 'v'
}

// log2 of the access width: the largest alignment a memarg may declare.
constexpr uint8_t NaturalAlignment(Opcode op) {
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

// Builds a row's shape from its signature column as written ("i_ll" is
// (i64, i64) -> i32; "v_" means no result; "Special" is typed by hand).
constexpr OpShape MakeShape(Opcode op, ImmKind imm, const char* sig) {
  OpShape shape;
  if (sig[0] == 'S') {
    shape.special = true;
    return shape;
  }
  shape.result = LetterType(sig[0]);
  for (const char* p = sig + 2; *p; ++p) shape.params[shape.num_params++] = LetterType(*p);
  if (imm == ImmKind::MemArg) {
    shape.memory = OpShape::kMemArg;
    shape.max_align = NaturalAlignment(op);
  } else if (imm == ImmKind::Memory) {
    shape.memory = OpShape::kMemoryIndex;
  }
  return shape;
}

}  // namespace

// The opcode table (opcodes.def) in the form the hot loop wants: one load
// per instruction instead of a call to GetOpcodeInfo.
const OpShape kOpShapes[] = {
#define WASM_OP(name, text, prefix, code, imm, sig, fuel) \
  MakeShape(Opcode::name, ImmKind::imm, #sig),
#include "ampoule/wasm/opcodes.def"
};
static_assert(sizeof(kOpShapes) / sizeof(kOpShapes[0]) == size_t(Opcode::kCount));

namespace {

thread_local FuncStacks tls_stacks;

// After a huge body, give the memory back rather than keeping it for the
// life of the thread.
void TrimStacks(FuncStacks& s) {
  constexpr size_t kKeepVals = 1u << 16, kKeepCtrls = 1u << 12;
  if (s.vals.size() > kKeepVals) std::vector<ValType>().swap(s.vals);
  if (s.ctrls.capacity() > kKeepCtrls) std::vector<CtrlFrame>().swap(s.ctrls);
}

}  // namespace

const char* TypeName(ValType t) { return t == kUnknown ? "any" : ValTypeName(t); }

FuncChecker::FuncChecker(const Module& module, uint32_t index, FuncStacks& stacks)
    : m_(module), index_(index), vals_(stacks.vals), ctrls_(stacks.ctrls) {
  ctrls_.clear();
}

bool FuncChecker::Mismatch(ValType expected, const char* got) {
  return Fail("type mismatch in ", OpName(), ": expected ", TypeName(expected), ", got ", got);
}

bool FuncChecker::FailStackHeight() {
  return Fail("operand stack too high (implementation limit ", kMaxOperandStackHeight,
              " values)");
}

const char* FuncChecker::OpName() const { return GetOpcodeInfo(cur_->op).text; }

bool FuncChecker::PopSlow(ValType expected) {
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
    return f.unreachable || Fail("type mismatch in ", OpName(), ": expected a value, got nothing");
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

bool FuncChecker::PushCtrl(Opcode op, TypeSpan params, TypeSpan results) {
  if (ctrls_.size() >= kMaxControlDepth) {
    return Fail("blocks nested too deeply (implementation limit ", kMaxControlDepth, ")");
  }
  ctrls_.push_back(CtrlFrame{op, false, uint32_t(vals_.size()), params, results});
  return PushVals(params);
}

bool FuncChecker::PopCtrlResults() {
  const CtrlFrame& f = ctrls_.back();
  if (!PopVals(f.results)) return false;
  if (vals_.size() == f.height) return true;
  return Fail("type mismatch in ", OpName(), ": block with result type ",
              TypesToString({f.results.data, f.results.size}), " leaves ",
              vals_.size() - f.height, " extra value(s) on the stack");
}

void FuncChecker::SetUnreachable() {
  CtrlFrame& f = ctrls_.back();
  vals_.resize(f.height);
  f.unreachable = true;
}

bool FuncChecker::CheckMemory() {
  return !m_.memories.empty() || Fail("unknown memory 0 in ", OpName());
}

bool FuncChecker::CheckMemArg(const Instr& in, const OpShape& s) {
  if (!CheckMemory()) return false;
  if (s.memory == OpShape::kMemArg && in.a > s.max_align) {
    return Fail("alignment must not be larger than natural in ", OpName(), ": 2^", in.a, " > ",
                1u << s.max_align);
  }
  return true;
}

bool FuncChecker::Plain(const Instr& in, const OpShape& s) {
  if (s.memory != OpShape::kNoMemory && !CheckMemArg(in, s)) return false;
  // Fast path: the operands are there, above the block's base, and of the
  // right types. Anything else (dead code, a mismatch) takes PlainSlow.
  size_t height = vals_.size();
  if (height - ctrls_.back().height >= s.num_params) {
    const ValType* top = vals_.data() + height;
    if (s.num_params == 0) {
      if (s.result != kUnknown) vals_.push_back(s.result);
      return true;
    }
    if (s.num_params == 1 && top[-1] == s.params[0]) {
      if (s.result != kUnknown) vals_.back() = s.result;
      else vals_.pop_back();
      return true;
    }
    if (s.num_params == 2 && top[-2] == s.params[0] && top[-1] == s.params[1]) {
      vals_.pop_back();
      if (s.result != kUnknown) vals_.back() = s.result;
      else vals_.pop_back();
      return true;
    }
  }
  return PlainSlow(s);
}

bool FuncChecker::PlainSlow(const OpShape& s) {
  for (uint32_t i = s.num_params; i-- > 0;) {
    if (!Pop(s.params[i])) return false;
  }
  if (s.result != kUnknown) vals_.push_back(s.result);
  return true;
}

core::Status FuncChecker::Run(const FunctionCode& code) {
  std::string where = "function " + std::to_string(uint64_t(m_.num_imported_funcs) + index_);
  if (index_ >= m_.functions.size()) return Invalid(where, kNoOffset, "no such function");
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
    if (size_t(in.op) >= size_t(Opcode::kCount)) {
      return Invalid(where, in.offset, "unknown opcode " + std::to_string(size_t(in.op)));
    }
    cur_ = &in;
    vals_.Reserve(1);
    const OpShape& shape = kOpShapes[size_t(in.op)];
    if (shape.special ? Special(in) : Plain(in, shape)) continue;
    if (simd_) return UnsupportedSimd(where, in.offset, error_);
    return Invalid(where, in.offset, error_);
  }
  if (!ctrls_.empty()) return Invalid(where, body.code_end, "function body does not end with end");
  return core::Status::Ok();
}

}  // namespace validator_internal

core::Status ValidateFunction(const Module& module, uint32_t index, const FunctionCode& code) {
  validator_internal::FuncStacks& stacks = validator_internal::tls_stacks;
  core::Status status = validator_internal::FuncChecker(module, index, stacks).Run(code);
  validator_internal::TrimStacks(stacks);
  return status;
}

}  // namespace ampoule::wasm
