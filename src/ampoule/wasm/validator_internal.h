// Shared by the validator's files (validator.cc, validator_func.cc,
// validator_control.cc, validator_special.cc); not a public interface.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/wasm/module.h"
#include "ampoule/wasm/opcode.h"
#include "ampoule/wasm/types.h"
#include "core/result.h"

namespace ampoule::wasm::validator_internal {

// Implementation limits on untrusted function bodies. The spec sets none, but
// without them a small body could make the validator grow its stacks without
// bound (a call returning many values, repeated, pushes far more slots than
// the body has bytes). Both are far beyond what compilers emit. Single-value
// pushes are bounded by the instruction count already, so the height limit is
// checked where several values are pushed at once.
constexpr uint32_t kMaxControlDepth = 1u << 18;         // nested block/loop/if
constexpr uint32_t kMaxOperandStackHeight = 1u << 20;   // values on the stack

// For Invalid/UnsupportedSimd: the error has no byte offset to report.
constexpr uint32_t kNoOffset = ~0u;

// "0x2a"
std::string Hex(uint32_t value);

// "[i32 f64]"
std::string TypesToString(std::span<const ValType> types);

// Errors for a module that breaks a validation rule:
//   "invalid module: <where> at byte 0x<offset>: <what>"
// and for one that uses a feature the engine does not implement yet:
//   "unsupported: simd: <where> at byte 0x<offset>: <what>"
// `what` starts with the spec test suite's wording ("type mismatch",
// "unknown global 3", ...), so runners can match it.
core::Error Invalid(std::string_view where, uint32_t offset, std::string_view what);
core::Error UnsupportedSimd(std::string_view where, uint32_t offset, std::string_view what);

// The type of an operand-stack slot whose type is not known: what a pop
// from the polymorphic stack (after unreachable, br, br_table, return)
// yields. Never a real ValType encoding.
constexpr ValType kUnknown = ValType(0);

// "i32", or "any" for kUnknown.
const char* TypeName(ValType t);

// A borrowed list of value types (from Module::types or static storage).
struct TypeSpan {
  const ValType* data = nullptr;
  uint32_t size = 0;
};

struct CtrlFrame {
  Opcode op;         // Block, Loop, If or Else; Block for the function's frame
  bool unreachable;  // the rest of this block is dead code
  uint32_t height;   // operand stack height below the block's params
  TypeSpan params;
  TypeSpan results;
  // What a branch to this frame carries.
  TypeSpan labels() const { return op == Opcode::Loop ? params : results; }
};

// A row of the opcode table as the validator uses it (built from
// opcodes.def in validator_func.cc).
struct OpShape {
  enum Memory : uint8_t { kNoMemory, kMemoryIndex, kMemArg };
  bool special = false;  // Sig::Special: typed by hand
  Memory memory = kNoMemory;
  uint8_t max_align = 0;  // kMemArg: log2 of the natural alignment
  uint8_t num_params = 0;
  ValType params[2] = {ValType::I32, ValType::I32};
  ValType result = kUnknown;  // kUnknown: no result
};
extern const OpShape kOpShapes[];  // indexed by Opcode

// The operand stack. A std::vector serves as storage, but pushes skip the
// capacity check: Run makes room for one value before every instruction, no
// instruction pushes more than one value except through append, and append
// makes its own room. Keeping growth out of the handlers keeps them small.
class OperandStack {
 public:
  explicit OperandStack(std::vector<ValType>& storage) : storage_(storage) { Refresh(); }
  size_t size() const { return size_; }
  const ValType* data() const { return data_; }
  ValType operator[](size_t i) const { return data_[i]; }
  ValType& back() { return data_[size_ - 1]; }
  void pop_back() { --size_; }
  void resize(size_t n) { size_ = n; }               // REQUIRES: n <= size()
  void push_back(ValType t) { data_[size_++] = t; }  // REQUIRES: room for one
  void Reserve(size_t n) {
    if (cap_ - size_ < n) Grow(n);
  }
  void append(const ValType* p, size_t n) {
    Reserve(n);
    std::copy(p, p + n, data_ + size_);
    size_ += n;
  }

 private:
  [[gnu::noinline]] void Grow(size_t n) {
    storage_.resize(std::max(size_ + n, storage_.size() * 2 + 64));
    Refresh();
  }
  void Refresh() {
    data_ = storage_.data();
    cap_ = storage_.size();
  }

  std::vector<ValType>& storage_;
  ValType* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

struct FuncStacks {
  std::vector<ValType> vals;
  std::vector<CtrlFrame> ctrls;
};

// Checks one function body. Built per function over stacks that outlive it.
// Methods that return bool return false after recording an error in error_.
// Error paths go through Fail (cold, out of line) so the hot handlers stay
// small.
class FuncChecker {
 public:
  // REQUIRES: `stacks` is used by nothing else while this checker lives.
  FuncChecker(const Module& module, uint32_t index, FuncStacks& stacks);
  core::Status Run(const FunctionCode& code);

 private:
  // validator_func.cc: plain instructions and the stack primitives.
  bool Plain(const Instr& in, const OpShape& shape);
  [[gnu::noinline]] bool PlainSlow(const OpShape& shape);
  [[gnu::noinline]] bool CheckMemArg(const Instr& in, const OpShape& shape);
  bool Special(const Instr& in);  // dispatches to the handlers below

  // validator_control.cc: blocks, branches, calls.
  bool BlockTypes(const BlockType& bt, TypeSpan* params, TypeSpan* results);
  bool StartBlock(const Instr& in);
  bool Else();
  bool End();
  bool Label(uint32_t depth, const CtrlFrame** frame);
  bool Br(const Instr& in);
  bool BrIf(const Instr& in);
  bool BrTable(const Instr& in);
  bool Return();
  bool Call(const Instr& in);
  bool CallIndirect(const Instr& in);

  // validator_special.cc: parametric, variable, reference, table and bulk
  // memory instructions.
  bool Drop();
  bool Select(const Instr& in);
  bool Local(const Instr& in);
  bool Global(const Instr& in);
  bool Reference(const Instr& in);
  bool TableOp(const Instr& in);
  bool BulkMemory(const Instr& in);
  bool CheckTable(uint32_t index, ValType* elem);
  bool CheckElem(uint32_t index, ValType* type);
  bool CheckData(uint32_t index);
  bool CheckMemory();

  // The appendix's stack primitives. The common cases are inline; dead code
  // and errors go to the out-of-line parts.
  bool Pop(ValType expected) {
    if (vals_.size() > ctrls_.back().height) {
      ValType got = vals_.back();
      if (got == expected || got == kUnknown || expected == kUnknown) {
        vals_.pop_back();
        return true;
      }
    }
    return PopSlow(expected);
  }
  bool PopSlow(ValType expected);
  bool PopAny(ValType* out);
  bool PopVals(TypeSpan types);
  // Only multi-value pushes can outgrow the body's size, so the height
  // limit is checked here.
  bool PushVals(TypeSpan types) {
    vals_.append(types.data, types.size);
    return vals_.size() <= kMaxOperandStackHeight || FailStackHeight();
  }
  bool PushCtrl(Opcode op, TypeSpan params, TypeSpan results);
  bool PopCtrlResults();
  void SetUnreachable();

  // Records "<parts...>" as the error (the first one wins) and returns false.
  template <class... Parts>
  [[gnu::cold, gnu::noinline]] bool Fail(const Parts&... parts) {
    if (error_.empty()) (Append(parts), ...);
    return false;
  }
  void Append(std::string_view s) { error_ += s; }
  void Append(uint64_t v) { error_ += std::to_string(v); }
  [[gnu::cold, gnu::noinline]] bool Mismatch(ValType expected, const char* got);
  [[gnu::cold, gnu::noinline]] bool FailStackHeight();
  const char* OpName() const;

  const Module& m_;
  uint32_t index_;  // among defined functions
  OperandStack vals_;
  std::vector<CtrlFrame>& ctrls_;
  const FunctionCode* code_ = nullptr;
  const FuncType* type_ = nullptr;
  const std::vector<ValType>* locals_ = nullptr;  // declared locals, after params
  const Instr* cur_ = nullptr;
  std::string error_;
  bool simd_ = false;  // error_ is about SIMD, not invalidity
};

}  // namespace ampoule::wasm::validator_internal
