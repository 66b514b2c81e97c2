// Section payloads of the binary format (core spec 2.0, 5.5.2-5.5.13).
//
// Every vector is read element by element with the reader's sticky error
// ending the loop, and memory is reserved for at most as many elements as
// there are bytes left, so a count that lies costs nothing.
#include <string>

#include "ampoule/wasm/decoder_internal.h"

namespace ampoule::wasm::decoder_internal {
namespace {

std::string TooMany(const char* what, uint32_t limit) {
  return "too many " + std::string(what) + " (limit " + std::to_string(limit) + ")";
}

void ReadValTypes(BinaryReader& r, uint32_t limit, const char* what, std::vector<ValType>* out) {
  uint32_t n = ReadCount(r, limit, what);
  out->reserve(SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) out->push_back(ReadValType(r));
}

FuncType ReadFuncType(BinaryReader& r) {
  FuncType t;
  uint32_t at = r.offset();
  uint8_t form = r.ReadU8();
  if (!r.ok()) return t;
  if (form != 0x60) {
    // The form is a one-byte signed LEB128 number in the reference
    // interpreter, so a continuation bit reads as an over-long integer.
    r.Fail(at, (form & 0x80) ? kTooLong : "malformed function type (expected 0x60)");
    return t;
  }
  ReadValTypes(r, kMaxFunctionParams, "parameters", &t.params);
  ReadValTypes(r, kMaxFunctionResults, "results", &t.results);
  return t;
}

Limits ReadLimits(BinaryReader& r) {
  Limits l;
  uint32_t at = r.offset();
  uint8_t flag = r.ReadU8();
  if (!r.ok()) return l;
  // The flag is a one-bit LEB128 number in the reference interpreter.
  if (flag & 0x80) {
    r.Fail(at, kTooLong);
    return l;
  }
  if (flag > 1) {
    r.Fail(at, std::string(kTooLarge) + " (limits flag must be 0 or 1)");
    return l;
  }
  l.min = r.ReadU32();
  if (flag == 1) l.max = r.ReadU32();
  return l;
}

TableType ReadTableType(BinaryReader& r) {
  TableType t;
  t.elem = ReadRefType(r);
  t.limits = ReadLimits(r);
  return t;
}

GlobalType ReadGlobalType(BinaryReader& r) {
  GlobalType g;
  g.type = ReadValType(r);
  uint32_t at = r.offset();
  uint8_t mut = r.ReadU8();
  if (r.ok() && mut > 1) r.Fail(at, "malformed mutability");
  g.mutable_ = mut == 1;
  return g;
}

// A constant expression `ref.func x` standing for a bare function index in
// the element segment encodings 0-3.
ConstExpr FuncIndexItem(BinaryReader& r, Module& m) {
  ConstExpr e;
  e.offset = r.offset();
  Instr in;
  in.op = Opcode::RefFunc;
  in.offset = e.offset;
  in.a = r.ReadU32();
  e.instrs.push_back(in);
  m.declared_func_refs.push_back(in.a);
  return e;
}

}  // namespace

uint32_t ReadCount(BinaryReader& r, uint32_t limit, const char* what) {
  uint32_t at = r.offset();
  uint32_t n = r.ReadU32();
  if (r.ok() && n > limit) r.Fail(at, TooMany(what, limit));
  return r.ok() ? n : 0;
}

ValType ReadValType(BinaryReader& r) {
  uint32_t at = r.offset();
  uint8_t b = r.ReadU8();
  switch (b) {
    case 0x7F: case 0x7E: case 0x7D: case 0x7C: case 0x7B: case 0x70: case 0x6F:
      return ValType(b);
    default:
      if (r.ok()) r.Fail(at, "malformed value type");
      return ValType::I32;
  }
}

ValType ReadRefType(BinaryReader& r) {
  uint32_t at = r.offset();
  uint8_t b = r.ReadU8();
  if (b == 0x70 || b == 0x6F) return ValType(b);
  if (r.ok()) r.Fail(at, "malformed reference type");
  return ValType::FuncRef;
}

void DecodeTypeSection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxTypes, "types");
  m.types.reserve(SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) m.types.push_back(ReadFuncType(r));
}

void DecodeImportSection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxImports, "imports");
  m.imports.reserve(SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    Import im;
    im.module = std::string(r.ReadName());
    im.name = std::string(r.ReadName());
    uint32_t at = r.offset();
    uint8_t kind = r.ReadU8();
    if (!r.ok()) return;
    switch (kind) {
      case 0:
        im.kind = ExternKind::Func;
        im.func_type = r.ReadU32();
        m.func_types.push_back(im.func_type);
        ++m.num_imported_funcs;
        break;
      case 1:
        im.kind = ExternKind::Table;
        im.table = ReadTableType(r);
        m.tables.push_back(im.table);
        ++m.num_imported_tables;
        break;
      case 2:
        im.kind = ExternKind::Memory;
        im.memory.limits = ReadLimits(r);
        m.memories.push_back(im.memory);
        ++m.num_imported_memories;
        break;
      case 3:
        im.kind = ExternKind::Global;
        im.global = ReadGlobalType(r);
        m.global_types.push_back(im.global);
        ++m.num_imported_globals;
        break;
      default:
        r.Fail(at, "malformed import kind");
        return;
    }
    m.imports.push_back(std::move(im));
  }
}

uint32_t DecodeFunctionSection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxFunctions, "functions");
  m.func_types.reserve(m.func_types.size() + SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) m.func_types.push_back(r.ReadU32());
  return n;
}

void DecodeTableSection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxTables, "tables");
  m.tables.reserve(m.tables.size() + SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) m.tables.push_back(ReadTableType(r));
}

void DecodeMemorySection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxMemories, "memories");
  m.memories.reserve(m.memories.size() + SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) m.memories.push_back(MemoryType{ReadLimits(r)});
}

void DecodeGlobalSection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxGlobals, "globals");
  m.globals.reserve(SafeReserve(r, n));
  m.global_types.reserve(m.global_types.size() + SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    Global g;
    g.type = ReadGlobalType(r);
    if (!r.ok()) return;
    g.init = ReadConstExpr(r, m);
    m.global_types.push_back(g.type);
    m.globals.push_back(std::move(g));
  }
}

void DecodeExportSection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxExports, "exports");
  m.exports.reserve(SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    Export ex;
    ex.name = std::string(r.ReadName());
    uint32_t at = r.offset();
    uint8_t kind = r.ReadU8();
    if (!r.ok()) return;
    if (kind > 3) {
      r.Fail(at, "malformed export kind");
      return;
    }
    ex.kind = ExternKind(kind);
    ex.index = r.ReadU32();
    if (ex.kind == ExternKind::Func) m.declared_func_refs.push_back(ex.index);
    m.exports.push_back(std::move(ex));
  }
}

void DecodeStartSection(BinaryReader& r, Module& m) {
  uint32_t f = r.ReadU32();
  if (r.ok()) m.start = f;
}

void DecodeElemSection(BinaryReader& r, Module& m) {
  uint32_t n = ReadCount(r, kMaxElemSegments, "element segments");
  m.elems.reserve(SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    ElemSegment seg;
    seg.byte_offset = r.offset();
    uint32_t flags = r.ReadU32();
    if (!r.ok()) return;
    // Bit 0: passive or declarative; bit 1: explicit table index (active)
    // or declarative (otherwise); bit 2: items are expressions, not indices.
    if (flags > 7) {
      r.Fail(seg.byte_offset, "malformed elements segment kind");
      return;
    }
    const bool exprs = flags & 4;
    if (!(flags & 1)) {
      seg.mode = SegmentMode::Active;
      if (flags & 2) seg.table = r.ReadU32();
      seg.offset = ReadConstExpr(r, m);
    } else {
      seg.mode = (flags & 2) ? SegmentMode::Declarative : SegmentMode::Passive;
    }
    if (flags & 3) {  // encodings 0 and 4 imply funcref
      if (exprs) {
        seg.type = ReadRefType(r);
      } else {
        uint32_t at = r.offset();
        uint8_t kind = r.ReadU8();
        if (r.ok() && kind != 0x00) r.Fail(at, "malformed element kind");
      }
    }
    uint32_t count = ReadCount(r, kMaxElemItems, "element segment items");
    seg.items.reserve(SafeReserve(r, count));
    for (uint32_t j = 0; j < count && r.ok(); ++j) {
      seg.items.push_back(exprs ? ReadConstExpr(r, m) : FuncIndexItem(r, m));
    }
    m.elems.push_back(std::move(seg));
  }
}

void DecodeDataCountSection(BinaryReader& r, Module& m) {
  uint32_t n = r.ReadU32();
  if (r.ok()) m.data_count = n;
}

void DecodeDataSection(BinaryReader& r, Module& m) {
  uint32_t at = r.offset();
  uint32_t n = ReadCount(r, kMaxDataSegments, "data segments");
  if (r.ok() && m.data_count && *m.data_count != n) {
    r.Fail(at, "data count and data section have inconsistent lengths");
    return;
  }
  m.datas.reserve(SafeReserve(r, n));
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    DataSegment d;
    d.byte_offset = r.offset();
    uint32_t flags = r.ReadU32();
    if (!r.ok()) return;
    switch (flags) {
      case 0: d.mode = SegmentMode::Active; d.offset = ReadConstExpr(r, m); break;
      case 1: d.mode = SegmentMode::Passive; break;
      case 2:
        d.mode = SegmentMode::Active;
        d.memory = r.ReadU32();
        d.offset = ReadConstExpr(r, m);
        break;
      default: r.Fail(d.byte_offset, "malformed data segment kind"); return;
    }
    uint32_t len = r.ReadU32();
    d.bytes_begin = r.offset();
    if (!r.ReadBytes(len)) return;
    d.bytes_size = len;
    m.datas.push_back(std::move(d));
  }
}

}  // namespace ampoule::wasm::decoder_internal
