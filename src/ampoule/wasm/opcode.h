// Opcode enumeration and per-opcode facts, all generated from opcodes.def.
#pragma once

#include <cstdint>

namespace ampoule::wasm {

enum class Opcode : uint16_t {
#define WASM_OP(name, text, prefix, code, imm, sig, fuel) name,
#include "ampoule/wasm/opcodes.def"
  kCount
};

// Which immediates follow an opcode in the binary format.
enum class ImmKind : uint8_t {
  None,
  BlockType,     // s33 block type
  Label,         // u32 label depth
  LabelTable,    // vec(u32) labels + u32 default
  Func,          // u32 function index
  CallIndirect,  // u32 type index, u32 table index
  SelectTypes,   // vec(valtype)
  Local,         // u32 local index
  Global,        // u32 global index
  Table,         // u32 table index
  MemArg,        // u32 align, u32 offset
  Memory,        // reserved byte 0x00 (memory index)
  MemoryInit,    // u32 data index, reserved byte
  MemoryCopy,    // two reserved bytes
  TableInit,     // u32 elem index, u32 table index
  TableCopy,     // u32 dst table, u32 src table
  Elem,          // u32 elem index
  Data,          // u32 data index
  I32,           // sLEB128 i32
  I64,           // sLEB128 i64
  F32,           // 4 bytes little-endian
  F64,           // 8 bytes little-endian
  RefType,       // one byte reftype
};

// Operand/result shape of plain numeric and memory instructions.
enum class Sig : uint8_t {
  Special,
  i_, l_, f_, d_,
  i_i, i_l, i_f, i_d,
  l_i, l_l, l_f, l_d,
  f_i, f_l, f_f, f_d,
  d_i, d_l, d_f, d_d,
  i_ii, i_ll, i_ff, i_dd,
  l_ll, f_ff, d_dd,
  v_ii, v_il, v_if, v_id,
};

struct OpcodeInfo {
  const char* text;   // as in the text format, e.g. "i32.add"
  uint8_t prefix;     // 0 or 0xFC
  uint32_t code;      // byte, or sub-opcode after the prefix
  ImmKind imm;
  Sig sig;
  uint32_t fuel;      // cost of one execution
};

// REQUIRES: op < Opcode::kCount
const OpcodeInfo& GetOpcodeInfo(Opcode op);

// Maps a one-byte opcode to the table; returns false for bytes that are not
// an opcode (including the 0xFC/0xFD prefixes themselves).
bool LookupOpcode(uint8_t byte, Opcode* out);
// Maps a 0xFC sub-opcode; false if unknown.
bool LookupMiscOpcode(uint32_t sub, Opcode* out);

}  // namespace ampoule::wasm
