// Translator: the per-instruction driver, the pre-pass, and linking.
#include "ampoule/wasm/translator.h"

#include <cstring>
#include <string>

#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm {

void CompiledFunctionDeleter::operator()(CompiledFunction* f) const { delete f; }

namespace translator {
namespace {

// Frames larger than this cannot be addressed by 32-bit slot operands with
// room to spare, and could never run within any sensible value-stack limit.
constexpr uint64_t kMaxFrameSlots = uint64_t(1) << 24;

}  // namespace

FunctionTranslator::FunctionTranslator(const Module& module, uint32_t index, const FunctionCode& code)
    : module_(module),
      body_(code),
      type_(module.types[module.functions[index].type]),
      index_(index) {}

BlockSig FunctionTranslator::Sig(const BlockType& bt) const {
  switch (bt.kind) {
    case BlockType::Kind::Empty: return {0, 0};
    case BlockType::Kind::Value: return {0, 1};
    case BlockType::Kind::TypeIndex: {
      const FuncType& t = module_.types[bt.type_index];
      return {uint32_t(t.params.size()), uint32_t(t.results.size())};
    }
  }
  return {0, 0};
}

// Finds the ifs with an else, and how many scratch slots the ifs with
// parameters need.
void FunctionTranslator::PrePass() {
  const std::vector<Instr>& instrs = body_.instrs;
  label_flags_.assign(instrs.size(), 0);
  std::vector<uint32_t> open;
  for (uint32_t i = 0; i < instrs.size(); ++i) {
    const Instr& in = instrs[i];
    switch (in.op) {
      case Opcode::If:
        next_scratch_ += Sig(in.block).params;
        [[fallthrough]];
      case Opcode::Block:
      case Opcode::Loop: open.push_back(i); break;
      case Opcode::Else:
        if (!open.empty()) label_flags_[open.back()] |= kHasElse;
        break;
      case Opcode::End:
        if (!open.empty()) open.pop_back();
        break;
      default: break;
    }
  }
}

core::Result<CompiledFunctionPtr> FunctionTranslator::Run() {
  PrePass();
  uint64_t locals = uint64_t(type_.params.size()) + module_.functions[index_].locals.size();
  uint64_t scratch = next_scratch_;
  if (locals + 1 + scratch > kMaxFrameSlots) {
    return core::Error{"function " + std::to_string(index_) + " has too many locals to run"};
  }
  num_locals_ = uint32_t(locals);
  zero_slot_ = num_locals_;  // zeroed on entry with the locals, never written
  first_stack_ = uint32_t(locals + 1 + scratch);
  next_scratch_ = zero_slot_ + 1;
  local_refs_.assign(first_stack_, 0);
  run_cost_.assign(1, 0);                 // run 0 never runs
  fuel_entries_.assign(1, FuelEntry{0, 0});  // kZeroFuel
  entry_fuel_ = NewRunEntry();
  EnterRun(entry_fuel_);
  Ctrl func;
  func.kind = Ctrl::Kind::kFunc;
  func.sig = {0, uint32_t(type_.results.size())};
  ctrls_.push_back(std::move(func));

  uint32_t dead_depth = 0;  // blocks opened inside unreachable code
  const std::vector<Instr>& instrs = body_.instrs;
  for (pc_ = 0; pc_ < instrs.size() && !ctrls_.empty(); ++pc_) {
    const Instr& in = instrs[pc_];
    if (ctrls_.back().unreachable) {
      // Dead code is dropped; only its block structure is followed.
      if (in.op == Opcode::Block || in.op == Opcode::Loop || in.op == Opcode::If) {
        ++dead_depth;
        continue;
      }
      if (in.op == Opcode::End && dead_depth > 0) {
        --dead_depth;
        continue;
      }
      if ((in.op != Opcode::Else && in.op != Opcode::End) || dead_depth > 0) continue;
    }
    AddFuel(in);
    CORE_RETURN_IF_ERROR(TranslateInstr());
    if (max_height_ > kMaxFrameSlots - first_stack_) {
      return core::Error{"function " + std::to_string(index_) + " needs too deep an operand stack to run"};
    }
  }
  return Finish();
}

core::Status FunctionTranslator::TranslateInstr() {
  const Instr& in = body_.instrs[pc_];
  switch (in.op) {
    case Opcode::Unreachable:
      Begin(IOp::Unreachable);
      MarkUnreachable();
      return core::Status::Ok();
    case Opcode::Nop: return core::Status::Ok();
    case Opcode::Block: OnBlock(Ctrl::Kind::kBlock, in.block); return core::Status::Ok();
    case Opcode::Loop: OnBlock(Ctrl::Kind::kLoop, in.block); return core::Status::Ok();
    case Opcode::If: OnIf(in.block, PopCond()); return core::Status::Ok();
    case Opcode::Else: OnElse(); return core::Status::Ok();
    case Opcode::End: OnEnd(); return core::Status::Ok();
    case Opcode::Br: OnBr(in.a); return core::Status::Ok();
    case Opcode::BrIf: OnBrIf(in.a, PopCond()); return core::Status::Ok();
    case Opcode::BrTable: OnBrTable(in); return core::Status::Ok();
    case Opcode::Return: OnReturn(); return core::Status::Ok();
    case Opcode::Call: OnCall(in.a); return core::Status::Ok();
    case Opcode::CallIndirect: OnCallIndirect(in.a, in.b); return core::Status::Ok();
    case Opcode::Drop: Pop(); return core::Status::Ok();
    case Opcode::Select:
    case Opcode::SelectT: OnSelect(); return core::Status::Ok();
    default: break;
  }
  if (OnVariable(in) || OnMemory(in) || OnNumeric(in)) return core::Status::Ok();
  return core::Error{"function " + std::to_string(index_) + ": instruction " + GetOpcodeInfo(in.op).text +
               " is not supported by the interpreter"};
}

}  // namespace translator

core::Result<CompiledFunctionPtr> TranslateFunction(const Module& module, uint32_t index,
                                             const FunctionCode& code) {
  translator::FunctionTranslator t(module, index, code);
  return t.Run();
}

IOp IOpAt(const int32_t* instr) {
  const void* h;
  std::memcpy(&h, instr, sizeof h);
  const void* const* handlers = InterpreterHandlers();
  for (size_t i = 0; i < size_t(IOp::kCount); ++i) {
    if (handlers[i] == h) return IOp(i);
  }
  return IOp::kCount;
}

std::vector<IOp> CompiledOps(const CompiledFunction& f) {
  std::vector<IOp> ops;
  for (uint32_t start : f.instr_starts) ops.push_back(IOpAt(&f.code[start]));
  return ops;
}

std::string ListCompiledFunction(const CompiledFunction& f) {
  std::string out;
  for (size_t i = 0; i < f.instr_starts.size(); ++i) {
    uint32_t start = f.instr_starts[i];
    uint32_t end = i + 1 < f.instr_starts.size() ? f.instr_starts[i + 1] : uint32_t(f.code.size());
    out += std::to_string(start) + ": " + IOpName(IOpAt(&f.code[start]));
    for (uint32_t u = start + 2; u < end; ++u) out += " " + std::to_string(f.code[u]);
    out += "\n";
  }
  return out;
}

}  // namespace ampoule::wasm
