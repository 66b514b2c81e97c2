// DecodeModule and DecodeFunctionCode (see decoder.h): the header, the
// section loop with its ordering and size rules, the code section's local
// declarations, and the checks that tie sections together. Section payloads
// live in decoder_sections.cc, instructions in decoder_expr.cc, limits in
// decoder_internal.h.
#include "ampoule/wasm/decoder.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "ampoule/wasm/decoder_internal.h"

namespace ampoule::wasm {
namespace {

using namespace decoder_internal;

enum SectionId : uint8_t {
  kCustom = 0, kType, kImport, kFunction, kTable, kMemory, kGlobal, kExport, kStart,
  kElem, kCode, kData, kDataCount,
};

// Where each non-custom section may appear: data count sits between the
// element and code sections although its id is the largest.
int OrderOf(uint8_t id) {
  static constexpr int kOrder[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 10};
  return kOrder[id];
}

// State that ties sections together while the loop runs.
struct Progress {
  int last_order = 0;
  uint32_t declared_functions = 0;  // from the function section
  bool saw_code = false;
  bool saw_data = false;
};

void ReadHeader(BinaryReader& r) {
  static constexpr uint8_t kMagic[4] = {0x00, 0x61, 0x73, 0x6D};
  if (r.remaining() < 4) {
    r.Fail(0, kUnexpectedEnd);
    return;
  }
  if (!std::equal(kMagic, kMagic + 4, r.ReadBytes(4))) {
    r.Fail(0, "magic header not detected");
    return;
  }
  if (r.remaining() < 4) {
    r.Fail(4, kUnexpectedEnd);
    return;
  }
  if (r.ReadFixed32() != 1) r.Fail(4, "unknown binary version");
}

void DecodeCustomSection(BinaryReader& r) {
  r.ReadName();   // must be valid UTF-8 even though the payload is opaque
  r.SkipToEnd();  // names and other custom payloads are not interpreted
}

// vec(locals): groups of (count, type), expanded into `locals`.
// `module_locals` is the running total over the module's functions.
void ReadLocals(BinaryReader& r, std::vector<ValType>* locals, uint64_t* module_locals) {
  uint32_t groups = r.ReadU32();
  uint64_t total = 0;
  for (uint32_t g = 0; g < groups && r.ok(); ++g) {
    uint32_t at = r.offset();
    uint32_t count = r.ReadU32();
    ValType t = ReadValType(r);
    if (!r.ok()) return;
    total += count;  // u64: cannot overflow for fewer than 2^32 groups
    if (total > kMaxFunctionLocals) {
      r.Fail(at, "too many locals (limit " + std::to_string(kMaxFunctionLocals) + ")");
      return;
    }
    *module_locals += count;
    if (*module_locals > kMaxModuleLocals) {
      r.Fail(at, "too many locals in the module (limit " + std::to_string(kMaxModuleLocals) + ")");
      return;
    }
    locals->insert(locals->end(), count, t);
  }
}

}  // namespace

namespace decoder_internal {

void DecodeCodeSection(BinaryReader& r, Module& m, uint32_t declared) {
  uint32_t at = r.offset();
  uint32_t n = r.ReadU32();
  if (!r.ok()) return;
  if (n != declared) {
    r.Fail(at, "function and code section have inconsistent lengths");
    return;
  }
  m.functions.reserve(SafeReserve(r, n));
  uint64_t module_locals = 0;
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    uint32_t size_at = r.offset();
    uint32_t size = r.ReadU32();
    if (!r.ok()) return;
    if (size > r.remaining()) {
      r.Fail(size_at, kLengthOutOfBounds);
      return;
    }
    if (size > kMaxFunctionSize) {
      r.Fail(size_at, "function body too large (limit " + std::to_string(kMaxFunctionSize) + " bytes)");
      return;
    }
    BinaryReader body(r.pos(), r.pos() + size, r.offset());
    FunctionBody fb;
    uint32_t func_index = m.num_imported_funcs + i;
    fb.type = func_index < m.func_types.size() ? m.func_types[func_index] : 0;
    ReadLocals(body, &fb.locals, &module_locals);
    r.TakeError(body);
    fb.code_begin = body.offset();
    fb.code_end = body.offset() + uint32_t(body.remaining());
    r.ReadBytes(size);
    if (r.ok()) m.functions.push_back(std::move(fb));
  }
}

}  // namespace decoder_internal

namespace {

void DecodeSection(uint8_t id, BinaryReader& s, Module& m, Progress& p) {
  switch (id) {
    case kCustom: DecodeCustomSection(s); break;
    case kType: DecodeTypeSection(s, m); break;
    case kImport: DecodeImportSection(s, m); break;
    case kFunction: p.declared_functions = DecodeFunctionSection(s, m); break;
    case kTable: DecodeTableSection(s, m); break;
    case kMemory: DecodeMemorySection(s, m); break;
    case kGlobal: DecodeGlobalSection(s, m); break;
    case kExport: DecodeExportSection(s, m); break;
    case kStart: DecodeStartSection(s, m); break;
    case kElem: DecodeElemSection(s, m); break;
    case kDataCount: DecodeDataCountSection(s, m); break;
    case kCode:
      p.saw_code = true;
      DecodeCodeSection(s, m, p.declared_functions);
      break;
    case kData:
      p.saw_data = true;
      DecodeDataSection(s, m);
      break;
  }
}

// Reads one section header and payload from the module reader `r`.
void ReadSection(BinaryReader& r, Module& m, Progress& p) {
  uint32_t section_at = r.offset();
  uint8_t id = r.ReadU8();
  if (r.ok() && id > kDataCount) {
    r.Fail(section_at, "malformed section id");
    return;
  }
  uint32_t size_at = r.offset();
  uint32_t size = r.ReadU32();
  if (!r.ok()) return;
  if (size > r.remaining()) {
    r.Fail(size_at, kLengthOutOfBounds);
    return;
  }
  if (id != kCustom) {
    if (OrderOf(id) <= p.last_order) {
      char text[96];
      std::snprintf(text, sizeof text,
                    "unexpected content after last section (section %u is out of order or repeated)",
                    unsigned(id));
      r.Fail(section_at, text);
      return;
    }
    p.last_order = OrderOf(id);
  }
  BinaryReader s(r.pos(), r.pos() + size, r.offset());
  DecodeSection(id, s, m, p);
  if (s.ok() && !s.at_end()) s.Fail("section size mismatch");
  r.TakeError(s);
  r.ReadBytes(size);
}

// Checks that need the whole module: counts declared in one section and
// provided by another that may be absent.
void CheckCrossSection(BinaryReader& r, const Module& m, const Progress& p) {
  if (!p.saw_code && p.declared_functions != 0) {
    r.Fail("function and code section have inconsistent lengths");
  } else if (!p.saw_data && m.data_count && *m.data_count != 0) {
    r.Fail("data count and data section have inconsistent lengths");
  }
}

}  // namespace

core::Result<Module> DecodeModule(std::span<const uint8_t> bytes) {
  if (bytes.size() > kMaxModuleSize) {
    return core::Error{"malformed module at byte 0x0: module too large (limit " +
                 std::to_string(kMaxModuleSize) + " bytes)"};
  }
  Module m;
  m.bytes.assign(bytes.begin(), bytes.end());
  const uint8_t* data = m.bytes.data();
  BinaryReader r(data, data + m.bytes.size(), 0, kUnexpectedEnd);
  ReadHeader(r);
  Progress p;
  while (r.ok() && !r.at_end()) ReadSection(r, m, p);
  if (r.ok()) CheckCrossSection(r, m, p);
  if (!r.ok()) return core::Error{r.error()};

  std::vector<uint32_t>& refs = m.declared_func_refs;
  std::sort(refs.begin(), refs.end());
  refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
  return m;
}

core::Result<FunctionCode> DecodeFunctionCode(const Module& module, uint32_t index) {
  if (index >= module.functions.size()) {
    return core::Error{"function " + std::to_string(index) + " does not exist (module defines " +
                 std::to_string(module.functions.size()) + ")"};
  }
  const FunctionBody& body = module.functions[index];
  if (body.code_begin > body.code_end || body.code_end > module.bytes.size()) {
    return core::Error{"function " + std::to_string(index) + " has a code range outside the module"};
  }
  const uint8_t* data = module.bytes.data();
  BinaryReader r(data + body.code_begin, data + body.code_end, body.code_begin);
  FunctionCode code;
  // Most instructions take two or three bytes; one reservation avoids most
  // regrowth without holding much more than the body needs.
  code.instrs.reserve((body.code_end - body.code_begin) / 2 + 1);
  DecodeExpr(r, module, ExprKind::Function, &code.instrs, &code.br_targets);
  if (r.ok() && !r.at_end()) r.Fail("section size mismatch (bytes after the function's final end)");
  if (!r.ok()) return core::Error{r.error()};
  return code;
}

}  // namespace ampoule::wasm
