// A decoded WebAssembly module: what the binary says, before validation.
//
// Produced by the decoder, checked by the validator, read by the translator
// and by instantiation. It holds no runtime state (no memories, no values
// that change); see runtime.h for that. Function bodies are kept as byte
// ranges into `bytes` and decoded one at a time into instruction lists, so a
// large module never holds all of its instructions decoded at once.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "ampoule/wasm/opcode.h"
#include "ampoule/wasm/types.h"

namespace ampoule::wasm {

// Block types: empty, one value type, or a type index (multi-value).
struct BlockType {
  enum class Kind : uint8_t { Empty, Value, TypeIndex } kind = Kind::Empty;
  ValType value = ValType::I32;  // Kind::Value
  uint32_t type_index = 0;       // Kind::TypeIndex
};

// One decoded instruction. Which fields are meaningful depends on
// GetOpcodeInfo(op).imm:
//   Label/Func/Local/Global/Table/Elem/Data  -> a
//   CallIndirect                             -> a = type index, b = table
//   TableInit                                -> a = elem index, b = table
//   TableCopy                                -> a = dst table, b = src table
//   MemArg                                   -> a = align (log2), imm = offset
//   I32/I64/F32/F64                          -> imm = the bits (zero-extended)
//   RefType                                  -> ref
//   BlockType                                -> block
//   LabelTable                               -> a = first index into
//        FunctionCode::br_targets, b = number of entries (default is last)
//   SelectTypes                              -> a = count, ref = first type
struct Instr {
  Opcode op = Opcode::Nop;
  uint32_t offset = 0;  // byte offset of the opcode in the module
  uint32_t a = 0;
  uint32_t b = 0;
  uint64_t imm = 0;
  ValType ref = ValType::FuncRef;
  BlockType block;
};

// A function body decoded into instructions (including the final `end`).
struct FunctionCode {
  std::vector<Instr> instrs;
  std::vector<uint32_t> br_targets;  // br_table label lists
};

struct Import {
  std::string module;
  std::string name;
  ExternKind kind = ExternKind::Func;
  uint32_t func_type = 0;  // kind == Func: type index
  TableType table;         // kind == Table
  MemoryType memory;       // kind == Memory
  GlobalType global;       // kind == Global
};

struct Export {
  std::string name;
  ExternKind kind = ExternKind::Func;
  uint32_t index = 0;  // in the module's index space for `kind` (imports first)
};

// A constant expression (global initialisers, segment offsets, element
// items). Kept as its decoded instructions; the validator checks that only
// constant instructions appear.
struct ConstExpr {
  std::vector<Instr> instrs;  // without the final `end`
  uint32_t offset = 0;               // byte offset in the module, for errors
};

struct Global {
  GlobalType type;
  ConstExpr init;
};

enum class SegmentMode : uint8_t { Active, Passive, Declarative };

struct ElemSegment {
  SegmentMode mode = SegmentMode::Active;
  uint32_t table = 0;            // Active only
  ConstExpr offset;              // Active only
  ValType type = ValType::FuncRef;
  std::vector<ConstExpr> items;  // each yields one reference
  uint32_t byte_offset = 0;      // in the module, for errors
};

struct DataSegment {
  SegmentMode mode = SegmentMode::Active;  // Active or Passive
  uint32_t memory = 0;                     // Active only
  ConstExpr offset;                        // Active only
  uint32_t bytes_begin = 0;                // range in Module::bytes
  uint32_t bytes_size = 0;
  uint32_t byte_offset = 0;                // in the module, for errors
};

// A function defined in the module (not imported).
struct FunctionBody {
  uint32_t type = 0;                // type index
  std::vector<ValType> locals;      // declared locals, expanded (params excluded)
  uint32_t code_begin = 0;          // first instruction byte in Module::bytes
  uint32_t code_end = 0;            // one past the final `end`
};

struct Module {
  std::vector<uint8_t> bytes;  // the whole binary; ranges above point into it

  std::vector<FuncType> types;
  std::vector<Import> imports;
  std::vector<uint32_t> func_types;   // type index of every function, imports first
  std::vector<TableType> tables;      // imports first
  std::vector<MemoryType> memories;   // imports first
  std::vector<GlobalType> global_types;  // imports first
  std::vector<Global> globals;        // defined globals only
  std::vector<Export> exports;
  std::optional<uint32_t> start;
  std::vector<ElemSegment> elems;
  std::vector<DataSegment> datas;
  std::optional<uint32_t> data_count;  // from the DataCount section
  std::vector<FunctionBody> functions;  // defined functions only

  uint32_t num_imported_funcs = 0;
  uint32_t num_imported_tables = 0;
  uint32_t num_imported_memories = 0;
  uint32_t num_imported_globals = 0;

  // Indices of functions that appear in element segments, exports or
  // outside function bodies in ref.func (the spec's C.refs), used by the
  // validator to check ref.func inside bodies. Sorted, without duplicates.
  std::vector<uint32_t> declared_func_refs;

  const FuncType& func_type(uint32_t func_index) const {
    return types[func_types[func_index]];
  }
};

}  // namespace ampoule::wasm
