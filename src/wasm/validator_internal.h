// Shared by the validator's files (validator.cc, validator_func.cc); not a
// public interface.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <vector>

#include "util/result.h"
#include "wasm/module.h"
#include "wasm/opcode.h"
#include "wasm/types.h"

namespace ampoule::wasm::validator_internal {

// Implementation limits on untrusted function bodies. The spec sets none, but
// without them a small body could make the validator grow its stacks without
// bound (a call returning many values, repeated, pushes far more slots than
// the body has bytes). Both are far beyond what compilers emit.
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
Error Invalid(std::string_view where, uint32_t offset, std::string_view what);
Error UnsupportedSimd(std::string_view where, uint32_t offset, std::string_view what);

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
  uint32_t height;   // operand stack height at entry (after the params)
  TypeSpan params;
  TypeSpan results;
  // What a branch to this frame carries.
  TypeSpan labels() const { return op == Opcode::Loop ? params : results; }
};

struct FuncStacks {
  std::vector<ValType> vals;
  std::vector<CtrlFrame> ctrls;
};

// Checks one function body. Built per function over stacks that outlive it.
// Methods that return bool return false after recording an error in error_.
class FuncChecker {
 public:
  // REQUIRES: `stacks` is used by nothing else while this checker lives.
  FuncChecker(const Module& module, uint32_t index, FuncStacks& stacks);
  Status Run(const FunctionCode& code);

 private:
  bool Plain(const Instr& in, const OpcodeInfo& info);  // validator_func.cc
  bool Special(const Instr& in);                        // validator_special.cc

  // Control and parametric instructions (validator_special.cc).
  bool BlockTypes(const BlockType& bt, TypeSpan* params, TypeSpan* results);
  bool StartBlock(const Instr& in);
  bool Else();
  bool End();
  bool Label(uint32_t depth, const CtrlFrame** frame);
  bool BrTable(const Instr& in);
  bool CallIndirect(const Instr& in);
  bool Select(const Instr& in);
  bool Variable(const Instr& in);
  bool Reference(const Instr& in);
  bool TableOp(const Instr& in);
  bool BulkMemory(const Instr& in);
  bool CheckTable(uint32_t index, ValType* elem);
  bool CheckElem(uint32_t index, ValType* type);
  bool CheckData(uint32_t index);

  // The appendix's stack primitives.
  bool Pop(ValType expected);
  bool PopAny(ValType* out);
  bool PopVals(TypeSpan types);
  void PushVals(TypeSpan types);
  bool PushCtrl(Opcode op, TypeSpan params, TypeSpan results);
  bool PopCtrlResults();
  void SetUnreachable();
  bool CheckMemory();

  bool Fail(std::string what);
  bool Mismatch(ValType expected, const char* got);
  const char* OpName() const;

  const Module& m_;
  uint32_t index_;  // among defined functions
  std::vector<ValType>& vals_;
  std::vector<CtrlFrame>& ctrls_;
  const FunctionCode* code_ = nullptr;
  const FuncType* type_ = nullptr;
  const std::vector<ValType>* locals_ = nullptr;  // declared locals, after params
  const Instr* cur_ = nullptr;
  std::string error_;
  bool simd_ = false;  // error_ is about SIMD, not invalidity
};

}  // namespace ampoule::wasm::validator_internal
