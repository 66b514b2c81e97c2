// Instruction sequences (core spec 2.0, 5.4): opcodes, immediates and block
// nesting, shared by function bodies and constant expressions.
//
// One forward pass; the only allocations are the output vectors (and a
// control stack that stays empty for straight-line code).
#include <array>
#include <cstdio>
#include <string>

#include "ampoule/wasm/decoder_internal.h"

namespace ampoule::wasm::decoder_internal {
namespace {

// What an open block accepts next: `else` only directly inside an `if`.
enum class Open : uint8_t { Block, If, Else };

void ReadBlockType(BinaryReader& r, BlockType* bt) {
  uint8_t b = r.PeekU8();
  if (r.at_end()) {
    r.ReadU8();  // reports the end
    return;
  }
  if (b == 0x40) {
    r.ReadU8();
    bt->kind = BlockType::Kind::Empty;
    return;
  }
  // A one-byte negative number is a value type; anything else is a
  // non-negative s33 type index.
  if ((b & 0xC0) == 0x40) {
    bt->kind = BlockType::Kind::Value;
    bt->value = ReadValType(r);
    return;
  }
  uint32_t at = r.offset();
  int64_t v = r.ReadS33();
  if (!r.ok()) return;
  if (v < 0) {
    r.Fail(at, "malformed block type");
    return;
  }
  bt->kind = BlockType::Kind::TypeIndex;
  bt->type_index = uint32_t(v);
}

void ReadZeroByte(BinaryReader& r) {
  uint32_t at = r.offset();
  uint8_t b = r.ReadU8();
  if (r.ok() && b != 0) r.Fail(at, "zero byte expected");
}

void RequireDataCount(BinaryReader& r, const Module& m, ExprKind kind, const Instr& in) {
  // The spec makes these malformed without a data count section so that a
  // one-pass decoder can check data indices before the data section. With
  // no data segments at all the index cannot be valid, so we leave the
  // module to the validator ("unknown data segment"): it is rejected either
  // way, and text-format tools omit the section when there is no data.
  if (kind == ExprKind::Function && !m.data_count && !m.datas.empty()) {
    r.Fail(in.offset, "data count section required");
  }
}

void ReadBrTable(BinaryReader& r, Instr* in, std::vector<uint32_t>* targets) {
  uint32_t n = ReadCount(r, kMaxBrTableTargets, "br_table targets");
  if (!r.ok()) return;
  in->a = uint32_t(targets->size());
  in->b = n + 1;  // the default label is stored last
  for (uint32_t i = 0; i <= n && r.ok(); ++i) targets->push_back(r.ReadU32());
}

void ReadImmediates(BinaryReader& r, const Module& m, ExprKind kind, ImmKind imm, Instr* in,
                    std::vector<uint32_t>* targets) {
  switch (imm) {
    case ImmKind::None: break;
    case ImmKind::BlockType: ReadBlockType(r, &in->block); break;
    case ImmKind::Label:
    case ImmKind::Func:
    case ImmKind::Local:
    case ImmKind::Global:
    case ImmKind::Table:
    case ImmKind::Elem: in->a = r.ReadU32(); break;
    case ImmKind::Data:
      in->a = r.ReadU32();
      RequireDataCount(r, m, kind, *in);
      break;
    case ImmKind::LabelTable: ReadBrTable(r, in, targets); break;
    case ImmKind::CallIndirect:
    case ImmKind::TableInit:
    case ImmKind::TableCopy:
      in->a = r.ReadU32();
      in->b = r.ReadU32();
      break;
    case ImmKind::SelectTypes: {
      uint32_t n = r.ReadU32();
      in->a = n;
      for (uint32_t i = 0; i < n && r.ok(); ++i) {
        ValType t = ReadValType(r);
        if (i == 0) in->ref = t;
      }
      break;
    }
    case ImmKind::MemArg:
      in->a = r.ReadU32();
      in->imm = r.ReadU32();
      break;
    case ImmKind::Memory: ReadZeroByte(r); break;
    case ImmKind::MemoryInit:
      in->a = r.ReadU32();
      ReadZeroByte(r);
      RequireDataCount(r, m, kind, *in);
      break;
    case ImmKind::MemoryCopy:
      ReadZeroByte(r);
      ReadZeroByte(r);
      break;
    case ImmKind::I32: in->imm = uint32_t(r.ReadS32()); break;
    case ImmKind::I64: in->imm = uint64_t(r.ReadS64()); break;
    case ImmKind::F32: in->imm = r.ReadFixed32(); break;
    case ImmKind::F64: in->imm = r.ReadFixed64(); break;
    case ImmKind::RefType: in->ref = ReadRefType(r); break;
  }
}

// The one-byte opcodes with their immediates, built at compile time from
// opcodes.def so the hot loop needs one table load per instruction.
struct OneByteOp {
  Opcode op = Opcode::Nop;
  ImmKind imm = ImmKind::None;
  bool valid = false;
};

constexpr std::array<OneByteOp, 256> BuildOneByteTable() {
  std::array<OneByteOp, 256> t{};
#define WASM_OP(name, text, prefix, code, imm, sig, fuel) \
  if (prefix == 0) t[code] = OneByteOp{Opcode::name, ImmKind::imm, true};
#include "ampoule/wasm/opcodes.def"
  return t;
}
constexpr std::array<OneByteOp, 256> kOneByte = BuildOneByteTable();

// Reads an opcode (one byte, or 0xFC and a u32 sub-opcode) into in->op and
// returns its immediate kind; on failure the reader holds the error.
ImmKind ReadOpcode(BinaryReader& r, Instr* in) {
  uint8_t byte = r.ReadU8();
  const OneByteOp& e = kOneByte[byte];
  if (e.valid) {
    in->op = e.op;
    return e.imm;
  }
  if (!r.ok()) return ImmKind::None;
  char text[64];
  if (byte == 0xFC) {
    uint32_t sub = r.ReadU32();
    if (!r.ok()) return ImmKind::None;
    if (LookupMiscOpcode(sub, &in->op)) return GetOpcodeInfo(in->op).imm;
    std::snprintf(text, sizeof text, "illegal opcode 0xfc 0x%x", unsigned(sub));
  } else if (byte == 0xFD) {
    std::snprintf(text, sizeof text, "unsupported: simd (opcode 0xFD)");
  } else {
    std::snprintf(text, sizeof text, "illegal opcode 0x%02x", unsigned(byte));
  }
  r.Fail(in->offset, text);
  return ImmKind::None;
}

}  // namespace

void DecodeExpr(BinaryReader& r, const Module& module, ExprKind kind, std::vector<Instr>* out,
                std::vector<uint32_t>* targets) {
  std::vector<Open> open;  // blocks inside the expression, innermost last
  for (;;) {
    if (r.at_end()) {
      // No-op if an error is already recorded (the reader is then at end).
      r.Fail(std::string(kUnexpectedEndOfSection) + ": END opcode expected");
      return;
    }
    // Decode in place: the instruction is dropped again if it is invalid
    // or is a constant expression's final `end`.
    Instr& in = out->emplace_back();
    in.offset = r.offset();
    ImmKind imm = ReadOpcode(r, &in);
    if (imm != ImmKind::None) ReadImmediates(r, module, kind, imm, &in, targets);
    if (!r.ok()) {
      out->pop_back();
      return;
    }
    switch (in.op) {
      case Opcode::Block:
      case Opcode::Loop: open.push_back(Open::Block); break;
      case Opcode::If: open.push_back(Open::If); break;
      case Opcode::Else:
        if (open.empty() || open.back() != Open::If) {
          r.Fail(in.offset, "END opcode expected, found else outside if");
          out->pop_back();
          return;
        }
        open.back() = Open::Else;
        break;
      case Opcode::End:
        if (open.empty()) {
          if (kind != ExprKind::Function) out->pop_back();
          return;
        }
        open.pop_back();
        break;
      default: break;
    }
  }
}

ConstExpr ReadConstExpr(BinaryReader& r, Module& module) {
  ConstExpr e;
  e.offset = r.offset();
  std::vector<uint32_t> targets;  // br_table is not constant; the validator rejects it
  DecodeExpr(r, module, ExprKind::Const, &e.instrs, &targets);
  for (const Instr& in : e.instrs) {
    if (in.op == Opcode::RefFunc) module.declared_func_refs.push_back(in.a);
  }
  return e;
}

}  // namespace ampoule::wasm::decoder_internal
