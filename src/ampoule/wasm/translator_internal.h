// The translator's working state, shared by translator*.cc. Internal.
//
// One FunctionTranslator turns one validated body into a CompiledFunction in
// a single forward pass (plus a small pre-pass that finds which labels are
// branched to). docs/interpreter.md explains the scheme; the short version:
//
//  * Every operand-stack position p has a fixed frame slot, first_stack + p.
//    The translator keeps a compile-time mirror of the operand stack whose
//    entries say where each value is: in its own slot (kStack), still in a
//    local or scratch slot (kSlot: a deferred local.get), or a known
//    constant (kConst). Consumers read locals and constants directly, so
//    local.get and most constants cost no instruction.
//  * A value-producing instruction writes its stack slot; a local.set/tee or
//    return that immediately follows retargets that write (the peephole).
//  * Fuel: while translating, every fuel operand holds an entry point (a
//    run and the cost already accumulated in it before the entry point);
//    Finish() replaces it with the run's total cost minus that prefix.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ampoule/wasm/compiled_function.h"
#include "ampoule/wasm/module.h"
#include "core/result.h"

namespace ampoule::wasm::translator {

struct Operand {
  enum class Kind : uint8_t { kStack, kSlot, kConst };
  Kind kind = Kind::kStack;
  uint32_t slot = 0;   // kSlot
  uint64_t value = 0;  // kConst (bits as in Value::bits)
};

// A block signature resolved to counts.
struct BlockSig {
  uint32_t params = 0;
  uint32_t results = 0;
};

struct Ctrl {
  enum class Kind : uint8_t { kFunc, kBlock, kLoop, kIf };
  Kind kind = Kind::kBlock;
  uint32_t height = 0;       // operand stack height below the params
  BlockSig sig;
  bool unreachable = false;  // the rest of this block is dead code
  bool has_else = false;     // kIf: an `else` follows (from the pre-pass)
  bool in_else = false;      // kIf: translating the else arm
  bool reached = false;      // a live branch targets the end label
  uint32_t loop_pos = 0;     // kLoop: code position of the body
  uint32_t loop_fuel = 0;    // kLoop: fuel entry point of the body
  uint32_t end_fuel = 0;     // fuel entry point after `end`
  uint32_t else_fuel = 0;    // kIf: fuel entry point of the else arm
  uint32_t scratch = 0;      // kIf with params: first scratch slot
  struct Fixup {
    uint32_t unit;   // code unit holding the target
    uint32_t start;  // start of the branch instruction (targets are relative)
  };
  std::vector<Fixup> fixups;  // branches to the end label
  Fixup else_fixup{0, 0};     // kIf: the branch taken when the condition is false
};

// A branch condition: op is the internal branch taken when the condition
// holds; a (and b or k) are its operands.
struct Cond {
  IOp op = IOp::BrNz;
  uint32_t a = 0;
  uint32_t b = 0;  // second slot or immediate, for compare branches
  bool binary = false;
};

class FunctionTranslator {
 public:
  FunctionTranslator(const Module& module, uint32_t index, const FunctionCode& code);
  core::Result<CompiledFunctionPtr> Run();

 private:
  // translator.cc: the main loop and finishing.
  void PrePass();
  core::Status TranslateInstr();
  // translator_finish.cc: fuel costs, pairing, linking.
  core::Result<CompiledFunctionPtr> Finish();
  void FormPairs();
  BlockSig Sig(const BlockType& bt) const;

  // translator_emit.cc: code, operands, fuel.
  uint32_t Begin(IOp op);
  void Unit(uint32_t v) { code_.push_back(int32_t(v)); }
  void UnitFuel(uint32_t entry) { Unit(entry); }  // a fuel entry point, costed in Finish()
  uint32_t NewEntry();                  // an entry point bound later
  void BindEntry(uint32_t entry);       // here (in a new run if dead code)
  uint32_t NewRunEntry();               // the start of a new run
  void EnterRun(uint32_t entry);        // translation continues in entry's run
  uint64_t EntryCost(uint32_t entry) const;
  void SetDst(uint32_t stack_pos);  // emits the dst unit for `stack_pos`, arms the peephole
  bool PeepholeFor(uint32_t stack_pos) const;
  void Retarget(uint32_t slot);
  bool TakeProducer(uint32_t stack_pos, IOp op, uint32_t* operands, uint32_t n);
  void BindLabel() {
    peephole_unit_ = kNone;
    last_dst_unit_ = kNone;
    label_pos_ = uint32_t(code_.size());
  }
  uint32_t StackSlot(uint32_t pos);
  void Push(Operand op);
  void PushStack() { Push(Operand{}); }
  Operand Pop();
  void Truncate(uint32_t height);
  uint32_t SlotOf(const Operand& op, uint32_t pos);  // materialises a constant
  void Materialize(uint32_t pos);
  void MaterializeAll();
  void MaterializeTop(uint32_t n);
  void MaterializeLocal(uint32_t slot);
  void EmitMove(uint32_t dst, const Operand& src);
  void EmitCopy(uint32_t dst, uint32_t src);
  void EmitConst(uint32_t dst, uint64_t value);

  // translator_calls.cc: calls and returns.
  void OnReturn();
  void EmitReturnSeq();
  void OnCall(uint32_t func);
  void OnCallIndirect(uint32_t type_index, uint32_t table);
  void EmitCall(IOp plain, IOp with_args, std::initializer_list<uint32_t> head, uint32_t np, uint32_t nr);

  // translator_control.cc: blocks and branches.
  void OnBlock(Ctrl::Kind kind, const BlockType& bt);
  void OnIf(const BlockType& bt, const Cond& cond);
  void OnElse();
  void OnEnd();
  void OnBr(uint32_t depth);
  void OnBrIf(uint32_t depth, const Cond& cond);
  void OnBrTable(const Instr& in);
  void MarkUnreachable();
  Ctrl& Target(uint32_t depth) { return ctrls_[ctrls_.size() - 1 - depth]; }
  bool NeedsMoves(const Ctrl& c) const;
  void EmitMoves(const Ctrl& c);
  void EmitBranchTo(Ctrl& c);
  Ctrl::Fixup EmitCondBranch(const Cond& cond, bool negate, uint32_t ft, uint32_t ff);
  IOp FuseWithProducer(IOp branch, uint32_t slot);
  void LinkBranch(Ctrl& c, const Ctrl::Fixup& fixup);
  uint32_t TargetFuel(const Ctrl& c) const;
  uint32_t Arity(const Ctrl& c) const;
  Cond PopCond();

  // translator_numeric.cc, translator_memory.cc, translator_variables.cc:
  // instruction groups; translator_ops.cc: operator forms and fusion.
  bool OnNumeric(const Instr& in);
  bool OnMemory(const Instr& in);
  bool OnVariable(const Instr& in);
  void OnLocalSet(uint32_t x, bool tee);
  void PopSlots(uint32_t n, uint32_t* out);
  void OnBinary(IOp rr, IOp ri, IOp ri_swapped, bool is64);
  void OnUnary(IOp op);
  void OnUnaryImm(IOp op, uint32_t k);
  void OnSub(bool is64);
  void OnIntCompare(int kind, bool is64);
  void OnEqz(bool is64);
  bool OnAndBranch();
  bool OnSignExtendShift();
  bool NextIsBranch() const;
  void FuseBranch(const Cond& cond);
  void OnSelect();
  void AddFuel(const Instr& in);

  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kZeroFuel = 0;  // fuel entry point that costs nothing

  const Module& module_;
  const FunctionCode& body_;
  const FuncType& type_;
  uint32_t index_;
  size_t pc_ = 0;  // index of the input instruction being translated

  std::vector<uint8_t> label_flags_;  // per instruction: kHasElse
  static constexpr uint8_t kHasElse = 1;
  uint32_t num_locals_ = 0;    // params + declared locals
  uint32_t zero_slot_ = 0;     // a slot that always holds 0
  uint32_t first_stack_ = 0;   // params + locals + zero slot + scratch
  uint32_t next_scratch_ = 0;
  uint32_t max_height_ = 0;

  std::vector<Operand> stack_;
  std::vector<uint32_t> local_refs_;  // kSlot entries on the stack per local/scratch slot
  std::vector<Ctrl> ctrls_;
  std::vector<int32_t> code_;
  std::vector<uint32_t> starts_;
  std::vector<IOp> ops_;              // op of each instruction, for linking
  uint32_t last_dst_unit_ = kNone;    // dst unit of the last instruction, if it has one
  uint32_t peephole_unit_ = kNone;    // dst unit of the last instruction ...
  uint32_t peephole_pos_ = 0;         // ... which wrote this stack position

  struct FuelEntry {
    uint32_t run;     // index into run_cost_
    uint64_t prefix;  // cost of the run before the entry point
  };
  std::vector<FuelEntry> fuel_entries_;  // entry 0 is kZeroFuel
  std::vector<uint64_t> run_cost_;       // total cost of each run; run 0 stays 0
  int64_t cur_run_ = -1;                 // run being accumulated; -1 in dead code
  uint32_t entry_fuel_ = 0;
  uint32_t label_pos_ = kNone;        // code position of the last label bound
};

}  // namespace ampoule::wasm::translator
