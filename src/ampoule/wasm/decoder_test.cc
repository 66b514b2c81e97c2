// Decoder tests: hand-written binaries for every section and every class of
// malformed input, plus truncation and mutation sweeps that may only end in
// success or one clean error.
#include "ampoule/wasm/decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ampoule::wasm {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes Leb(uint32_t v) {
  Bytes out;
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    out.push_back(v ? (b | 0x80) : b);
  } while (v);
  return out;
}

Bytes Vec(std::initializer_list<Bytes> items) {
  Bytes out = Leb(uint32_t(items.size()));
  for (const Bytes& i : items) out.insert(out.end(), i.begin(), i.end());
  return out;
}

Bytes Name(std::string_view s) { return Cat({Leb(uint32_t(s.size())), Bytes(s.begin(), s.end())}); }

Bytes Section(uint8_t id, const Bytes& payload) {
  return Cat({{id}, Leb(uint32_t(payload.size())), payload});
}

const Bytes kHeader = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};

Bytes Mod(std::initializer_list<Bytes> sections) {
  Bytes out = kHeader;
  for (const Bytes& s : sections) out.insert(out.end(), s.begin(), s.end());
  return out;
}

// A function body: locals then code (which should end in 0x0B).
Bytes Body(const Bytes& locals_and_code) {
  return Cat({Leb(uint32_t(locals_and_code.size())), locals_and_code});
}

const Bytes kVoidType = Section(1, Vec({{0x60, 0x00, 0x00}}));
const Bytes kOneFunc = Section(3, Vec({{0x00}}));
const Bytes kMemory = Section(5, Vec({{0x00, 0x01}}));
const Bytes kTable = Section(4, Vec({{0x70, 0x00, 0x01}}));

// A module with one [] -> [] function whose body (no locals) is `code`,
// plus optional sections placed before the code section.
Bytes FuncModule(const Bytes& code, std::initializer_list<Bytes> before_code = {},
                 std::initializer_list<Bytes> after_code = {}) {
  Bytes out = Mod({kVoidType, kOneFunc});
  for (const Bytes& s : before_code) out.insert(out.end(), s.begin(), s.end());
  Bytes c = Section(10, Vec({Body(Cat({{0x00}, code}))}));
  out.insert(out.end(), c.begin(), c.end());
  for (const Bytes& s : after_code) out.insert(out.end(), s.begin(), s.end());
  return out;
}

core::Result<Module> Decode(const Bytes& b) { return DecodeModule(b); }

// Decodes the module and then every function body; returns the first error.
std::string DecodeAll(const Bytes& b) {
  core::Result<Module> m = Decode(b);
  if (!m) return m.message();
  for (uint32_t i = 0; i < m->functions.size(); ++i) {
    core::Result<FunctionCode> c = DecodeFunctionCode(*m, i);
    if (!c) return c.message();
  }
  return "";
}

// Expects failure with "malformed module at byte 0x<at>: <text>..." from
// the module or from one of its bodies.
void ExpectMalformed(const Bytes& b, std::string_view text, int at = -1) {
  std::string err = DecodeAll(b);
  ASSERT_FALSE(err.empty()) << "decoded, expected: " << text;
  std::string prefix = "malformed module at byte 0x";
  ASSERT_EQ(err.rfind(prefix, 0), 0u) << err;
  EXPECT_NE(err.find(": " + std::string(text)), std::string::npos) << err;
  if (at >= 0) {
    char want[32];
    std::snprintf(want, sizeof want, "0x%x: ", unsigned(at));
    EXPECT_EQ(err.rfind(prefix + (want + 2), 0), 0u) << err;
  }
}

Module DecodeOk(const Bytes& b) {
  core::Result<Module> m = Decode(b);
  EXPECT_TRUE(m.ok()) << m.message();
  return m.ok() ? std::move(*m) : Module{};
}

FunctionCode CodeOf(const Bytes& b) {
  Module m = DecodeOk(b);
  EXPECT_EQ(m.functions.size(), 1u);
  if (m.functions.empty()) return {};
  core::Result<FunctionCode> c = DecodeFunctionCode(m, 0);
  EXPECT_TRUE(c.ok()) << c.message();
  return c.ok() ? std::move(*c) : FunctionCode{};
}

// ---------------------------------------------------------------- header

TEST(DecoderHeader, EmptyModule) {
  Module m = DecodeOk(kHeader);
  EXPECT_TRUE(m.types.empty());
  EXPECT_EQ(m.bytes, kHeader);
}

TEST(DecoderHeader, Errors) {
  ExpectMalformed({}, "unexpected end", 0);
  ExpectMalformed({0x00, 0x61, 0x73}, "unexpected end", 0);
  ExpectMalformed({0x01}, "unexpected end");
  ExpectMalformed({0x00, 0x41, 0x53, 0x4D, 0x01, 0x00, 0x00, 0x00}, "magic header not detected", 0);
  ExpectMalformed({0x00, 0x61, 0x73, 0x6D, 0x01, 0x00}, "unexpected end", 4);
  ExpectMalformed({0x00, 0x61, 0x73, 0x6D, 0x02, 0x00, 0x00, 0x00}, "unknown binary version", 4);
}

// ---------------------------------------------------------------- sections

TEST(DecoderSections, IdSizeAndOrder) {
  ExpectMalformed(Mod({{0x0D, 0x00}}), "malformed section id", 8);
  ExpectMalformed(Mod({{0x80, 0x00}}), "malformed section id", 8);
  ExpectMalformed(Mod({{0x01}}), "unexpected end", 9);
  ExpectMalformed(Mod({{0x01, 0x05, 0x00}}), "length out of bounds", 9);
  // A type section whose payload has one byte more than its contents.
  ExpectMalformed(Mod({Section(1, {0x00, 0x00})}), "section size mismatch", 11);
  // A payload too short for what it declares.
  ExpectMalformed(Mod({Section(1, {0x01, 0x60})}), "unexpected end of section or function");
  ExpectMalformed(Mod({kOneFunc, kVoidType}), "unexpected content after last section");
  ExpectMalformed(Mod({kMemory, kMemory}), "unexpected content after last section");
  // Data count (id 12) belongs before code (id 10).
  ExpectMalformed(Mod({Section(10, {0x00}), Section(12, {0x00})}), "unexpected content after last section");
  DecodeOk(Mod({Section(9, {0x00}), Section(12, {0x00}), Section(10, {0x00}), Section(11, {0x00})}));
}

TEST(DecoderSections, CustomAnywhereWithUtf8Name) {
  Bytes custom = Section(0, Cat({Name("name"), {0x01, 0x02, 0xFF}}));
  Module m = DecodeOk(Mod({custom, kVoidType, custom, kOneFunc, custom,
                           Section(10, Vec({Body({0x00, 0x0B})})), custom}));
  EXPECT_EQ(m.functions.size(), 1u);
  ExpectMalformed(Mod({Section(0, {0x02, 0xC0, 0x80})}), "malformed UTF-8 encoding", 10);
  ExpectMalformed(Mod({Section(0, {0x05, 'a'})}), "length out of bounds", 10);
  ExpectMalformed(Mod({Section(0, {})}), "unexpected end");
}

TEST(DecoderSections, Types) {
  Module m = DecodeOk(Mod({Section(1, Vec({{0x60, 0x02, 0x7F, 0x7B, 0x01, 0x6F},
                                          {0x60, 0x00, 0x02, 0x7C, 0x70}}))}));
  ASSERT_EQ(m.types.size(), 2u);
  EXPECT_EQ(m.types[0].params, (std::vector<ValType>{ValType::I32, ValType::V128}));
  EXPECT_EQ(m.types[0].results, (std::vector<ValType>{ValType::ExternRef}));
  EXPECT_EQ(m.types[1].results, (std::vector<ValType>{ValType::F64, ValType::FuncRef}));
  ExpectMalformed(Mod({Section(1, Vec({{0x61, 0x00, 0x00}}))}), "malformed function type", 11);
  ExpectMalformed(Mod({Section(1, {0x01, 0xE0, 0x7F, 0x00, 0x00})}), "integer representation too long");
  ExpectMalformed(Mod({Section(1, Vec({{0x60, 0x01, 0x7A, 0x00}}))}), "malformed value type", 13);
}

TEST(DecoderSections, Imports) {
  Bytes imports = Vec({Cat({Name("env"), Name("f"), {0x00, 0x00}}),
                       Cat({Name("env"), Name("t"), {0x01, 0x6F, 0x01, 0x02, 0x03}}),
                       Cat({Name("env"), Name("m"), {0x02, 0x00, 0x01}}),
                       Cat({Name("env"), Name("g"), {0x03, 0x7E, 0x01}})});
  Module m = DecodeOk(Mod({kVoidType, Section(2, imports)}));
  ASSERT_EQ(m.imports.size(), 4u);
  EXPECT_EQ(m.imports[0].module, "env");
  EXPECT_EQ(m.imports[0].name, "f");
  EXPECT_EQ(m.imports[1].kind, ExternKind::Table);
  EXPECT_EQ(m.imports[1].table.elem, ValType::ExternRef);
  EXPECT_EQ(m.imports[1].table.limits, (Limits{2, 3}));
  EXPECT_EQ(m.imports[2].memory.limits, (Limits{1, std::nullopt}));
  EXPECT_EQ(m.imports[3].global.type, ValType::I64);
  EXPECT_TRUE(m.imports[3].global.mutable_);
  EXPECT_EQ(m.num_imported_funcs, 1u);
  EXPECT_EQ(m.num_imported_tables, 1u);
  EXPECT_EQ(m.num_imported_memories, 1u);
  EXPECT_EQ(m.num_imported_globals, 1u);
  EXPECT_EQ(m.func_types, (std::vector<uint32_t>{0}));

  ExpectMalformed(Mod({Section(2, Vec({Cat({Name(""), Name(""), {0x04}})}))}), "malformed import kind", 13);
  ExpectMalformed(Mod({Section(2, Vec({Cat({Name(""), {0x02, 0xED, 0xA0}, {0x00, 0x00}})}))}),
                  "malformed UTF-8 encoding", 12);
  ExpectMalformed(Mod({Section(2, Vec({Cat({Name(""), Name(""), {0x03, 0x7F, 0x02}})}))}),
                  "malformed mutability");
}

TEST(DecoderSections, FunctionsAndCodeMustAgree) {
  const char* text = "function and code section have inconsistent lengths";
  ExpectMalformed(Mod({kVoidType, Section(3, Vec({{0x00}, {0x00}}))}), text);
  ExpectMalformed(Mod({Section(10, Vec({Body({0x00, 0x0B})}))}), text);
  ExpectMalformed(Mod({kVoidType, kOneFunc, Section(10, Vec({Body({0x00, 0x0B}), Body({0x00, 0x0B})}))}),
                  text);
  DecodeOk(Mod({Section(3, {0x00})}));
  DecodeOk(Mod({Section(10, {0x00})}));
}

TEST(DecoderSections, TablesAndMemories) {
  Module m = DecodeOk(Mod({Section(4, Vec({{0x70, 0x00, 0x05}, {0x6F, 0x01, 0x00, 0x80, 0x01}})),
                           Section(5, Vec({{0x01, 0x01, 0x82, 0x80, 0x80, 0x80, 0x00}}))}));
  ASSERT_EQ(m.tables.size(), 2u);
  EXPECT_EQ(m.tables[0].elem, ValType::FuncRef);
  EXPECT_EQ(m.tables[0].limits, (Limits{5, std::nullopt}));
  EXPECT_EQ(m.tables[1].limits, (Limits{0, 128}));
  ASSERT_EQ(m.memories.size(), 1u);
  EXPECT_EQ(m.memories[0].limits, (Limits{1, 2}));  // non-minimal LEB128 is fine

  ExpectMalformed(Mod({Section(4, Vec({{0x7F, 0x00, 0x00}}))}), "malformed reference type", 11);
  ExpectMalformed(Mod({Section(5, Vec({{0x02, 0x00}}))}), "integer too large", 11);
  ExpectMalformed(Mod({Section(5, Vec({{0x81, 0x00, 0x00}}))}), "integer representation too long", 11);
  ExpectMalformed(Mod({Section(4, {0x01})}), "unexpected end of section or function");
}

TEST(DecoderSections, GlobalsAndDeclaredRefs) {
  Module m = DecodeOk(Mod({kVoidType, Section(3, Vec({{0x00}, {0x00}, {0x00}})),
                           Section(6, Vec({{0x7F, 0x00, 0x41, 0x2A, 0x0B},
                                           {0x70, 0x01, 0xD2, 0x02, 0x0B}})),
                           Section(7, Vec({Cat({Name("f"), {0x00, 0x01}}), Cat({Name("g"), {0x03, 0x00}})})),
                           Section(10, Vec({Body({0x00, 0x0B}), Body({0x00, 0x0B}), Body({0x00, 0x0B})}))}));
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_EQ(m.global_types.size(), 2u);
  EXPECT_FALSE(m.globals[0].type.mutable_);
  ASSERT_EQ(m.globals[0].init.instrs.size(), 1u);  // no final end
  EXPECT_EQ(m.globals[0].init.instrs[0].op, Opcode::I32Const);
  EXPECT_EQ(m.globals[0].init.instrs[0].imm, 42u);
  EXPECT_EQ(m.globals[0].init.offset, 25u);
  EXPECT_TRUE(m.globals[1].type.mutable_);
  EXPECT_EQ(m.globals[1].init.instrs[0].op, Opcode::RefFunc);
  // ref.func 2 in a global, export of function 1; the global export is not a function.
  EXPECT_EQ(m.declared_func_refs, (std::vector<uint32_t>{1, 2}));
  ASSERT_EQ(m.exports.size(), 2u);
  EXPECT_EQ(m.exports[1].kind, ExternKind::Global);

  ExpectMalformed(Mod({Section(6, Vec({{0x7F, 0x02, 0x41, 0x00, 0x0B}}))}), "malformed mutability", 12);
  ExpectMalformed(Mod({Section(6, Vec({{0x7F, 0x00, 0x41, 0x00}}))}), "unexpected end");
}

TEST(DecoderSections, ExportsAndStart) {
  Module m = DecodeOk(Mod({kVoidType, kOneFunc, Section(7, Vec({Cat({Name("run"), {0x00, 0x00}})})),
                           Section(8, {0x00}), Section(10, Vec({Body({0x00, 0x0B})}))}));
  ASSERT_EQ(m.exports.size(), 1u);
  EXPECT_EQ(m.exports[0].name, "run");
  EXPECT_EQ(m.start, 0u);
  ExpectMalformed(Mod({Section(7, Vec({Cat({Name("x"), {0x04, 0x00}})}))}), "malformed export kind", 13);
  ExpectMalformed(Mod({Section(8, {0x00}), Section(8, {0x00})}), "unexpected content after last section");
}

TEST(DecoderSections, ElementSegmentsAllEightEncodings) {
  const Bytes offset = {0x41, 0x00, 0x0B};  // i32.const 0, end
  Bytes segs = Vec({Cat({{0x00}, offset, Vec({{0x00}})}),                         // active, table 0, indices
                    Cat({{0x01, 0x00}, Vec({{0x01}})}),                           // passive, indices
                    Cat({{0x02, 0x01}, offset, {0x00}, Vec({{0x00}, {0x01}})}),   // active table 1
                    Cat({{0x03, 0x00}, Vec({{0x01}})}),                           // declarative, indices
                    Cat({{0x04}, offset, Vec({{0xD2, 0x00, 0x0B}})}),             // active, exprs
                    Cat({{0x05, 0x70}, Vec({{0xD0, 0x70, 0x0B}})}),               // passive, exprs
                    Cat({{0x06, 0x01}, offset, {0x6F}, Vec({{0xD0, 0x6F, 0x0B}})}),  // active table 1, exprs
                    Cat({{0x07, 0x70}, Vec({{0xD2, 0x03, 0x0B}})})});             // declarative, exprs
  Module m = DecodeOk(Mod({Section(9, segs)}));
  ASSERT_EQ(m.elems.size(), 8u);
  const SegmentMode A = SegmentMode::Active, P = SegmentMode::Passive, D = SegmentMode::Declarative;
  const SegmentMode modes[] = {A, P, A, D, A, P, A, D};
  const uint32_t tables[] = {0, 0, 1, 0, 0, 0, 1, 0};
  const size_t counts[] = {1, 1, 2, 1, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(m.elems[i].mode, modes[i]);
    EXPECT_EQ(m.elems[i].table, tables[i]);
    EXPECT_EQ(m.elems[i].items.size(), counts[i]);
    if (modes[i] == A) {
      EXPECT_EQ(m.elems[i].offset.instrs.size(), 1u);
    }
  }
  EXPECT_EQ(m.elems[6].type, ValType::ExternRef);
  EXPECT_EQ(m.elems[2].items[1].instrs[0].op, Opcode::RefFunc);
  EXPECT_EQ(m.elems[2].items[1].instrs[0].a, 1u);
  EXPECT_EQ(m.elems[5].items[0].instrs[0].op, Opcode::RefNull);
  EXPECT_EQ(m.declared_func_refs, (std::vector<uint32_t>{0, 1, 3}));  // sorted, no duplicates

  ExpectMalformed(Mod({Section(9, Vec({{0x08}}))}), "malformed elements segment kind", 11);
  ExpectMalformed(Mod({Section(9, Vec({{0x01, 0x01, 0x00}}))}), "malformed element kind", 12);
  ExpectMalformed(Mod({Section(9, Vec({{0x05, 0x7F, 0x00}}))}), "malformed reference type", 12);
  ExpectMalformed(Mod({Section(9, Vec({{0x05, 0x70, 0x01, 0xF3, 0x00, 0x0B}}))}), "illegal opcode 0xf3", 14);
}

TEST(DecoderSections, DataSegmentsAndDataCount) {
  Bytes segs = Vec({Cat({{0x00, 0x41, 0x08, 0x0B}, Name("ab")}),
                    Cat({{0x01}, Name("xyz")}),
                    Cat({{0x02, 0x00, 0x41, 0x00, 0x0B}, Name("")})});
  Module m = DecodeOk(Mod({kMemory, Section(12, {0x03}), Section(11, segs)}));
  EXPECT_EQ(m.data_count, 3u);
  ASSERT_EQ(m.datas.size(), 3u);
  EXPECT_EQ(m.datas[0].mode, SegmentMode::Active);
  EXPECT_EQ(m.datas[0].offset.instrs[0].imm, 8u);
  EXPECT_EQ(m.datas[1].mode, SegmentMode::Passive);
  EXPECT_EQ(m.datas[1].bytes_size, 3u);
  EXPECT_EQ(std::string(m.bytes.begin() + m.datas[1].bytes_begin,
                        m.bytes.begin() + m.datas[1].bytes_begin + m.datas[1].bytes_size), "xyz");
  EXPECT_EQ(m.datas[2].bytes_size, 0u);

  const char* text = "data count and data section have inconsistent lengths";
  ExpectMalformed(Mod({Section(12, {0x02}), Section(11, Vec({{0x01, 0x00}}))}), text);
  ExpectMalformed(Mod({Section(12, {0x01})}), text);
  DecodeOk(Mod({Section(12, {0x00})}));
  ExpectMalformed(Mod({Section(11, Vec({{0x03, 0x00}}))}), "malformed data segment kind", 11);
  ExpectMalformed(Mod({Section(11, Vec({{0x01, 0x05, 'a'}}))}), "unexpected end of section or function");
}

TEST(DecoderSections, CodeLocalsAndRanges) {
  Bytes body = {0x03, 0x02, 0x7F, 0x00, 0x7E, 0x01, 0x7B, 0x01, 0x0B};
  Bytes module = Mod({kVoidType, kOneFunc, Section(10, Vec({Body(body)}))});
  Module m = DecodeOk(module);
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].locals, (std::vector<ValType>{ValType::I32, ValType::I32, ValType::V128}));
  EXPECT_EQ(m.functions[0].code_end, module.size());
  EXPECT_EQ(m.functions[0].code_begin, module.size() - 2);  // nop, end

  // 0xFFFFFFFF + 2 overflows u32; 50,001 is over the named limit.
  ExpectMalformed(Mod({kVoidType, kOneFunc,
                       Section(10, Vec({Body({0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F, 0x02, 0x7E, 0x0B})}))}),
                  "too many locals");
  ExpectMalformed(Mod({kVoidType, kOneFunc, Section(10, Vec({Body(Cat({{0x01}, Leb(50'001), {0x7F, 0x0B}}))}))}),
                  "too many locals");
  DecodeOk(Mod({kVoidType, kOneFunc, Section(10, Vec({Body(Cat({{0x01}, Leb(50'000), {0x7F, 0x0B}}))}))}));
  ExpectMalformed(Mod({kVoidType, kOneFunc, Section(10, Vec({Body({0x01, 0x80, 0x80, 0x80, 0x80, 0x10, 0x7F, 0x0B})}))}),
                  "integer too large");
  ExpectMalformed(Mod({kVoidType, kOneFunc, Section(10, {0x01, 0x09, 0x00, 0x0B})}), "length out of bounds");
}

// ---------------------------------------------------------------- LEB128

TEST(DecoderLeb128, UnsignedRules) {
  auto memory_min = [](Bytes leb) { return Mod({Section(5, Cat({{0x01, 0x00}, leb}))}); };
  EXPECT_EQ(DecodeOk(memory_min({0x82, 0x80, 0x80, 0x80, 0x00})).memories[0].limits.min, 2u);
  EXPECT_EQ(DecodeOk(memory_min({0xFF, 0xFF, 0xFF, 0xFF, 0x0F})).memories[0].limits.min, 0xFFFFFFFFu);
  // Errors name the offending (5th) byte.
  ExpectMalformed(memory_min({0x82, 0x80, 0x80, 0x80, 0x80, 0x00}), "integer representation too long", 16);
  ExpectMalformed(memory_min({0x82, 0x80, 0x80, 0x80, 0x10}), "integer too large", 16);
  ExpectMalformed(memory_min({0x82, 0x80}), "unexpected end of section or function");
}

uint64_t GlobalConst(const Bytes& type_and_expr) {
  Module m = DecodeOk(Mod({Section(6, Cat({{0x01}, type_and_expr}))}));
  return m.globals.empty() || m.globals[0].init.instrs.empty() ? 0xDEAD : m.globals[0].init.instrs[0].imm;
}

TEST(DecoderLeb128, SignedRules) {
  EXPECT_EQ(GlobalConst({0x7F, 0x00, 0x41, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x0B}), 0xFFFFFFFFu);
  EXPECT_EQ(GlobalConst({0x7F, 0x00, 0x41, 0x80, 0x80, 0x80, 0x80, 0x78, 0x0B}), 0x80000000u);
  EXPECT_EQ(GlobalConst({0x7F, 0x00, 0x41, 0x3F, 0x0B}), 63u);
  EXPECT_EQ(GlobalConst({0x7F, 0x00, 0x41, 0x40, 0x0B}), 0xFFFFFFC0u);
  EXPECT_EQ(GlobalConst({0x7E, 0x00, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F, 0x0B}),
            0x8000000000000000u);
  EXPECT_EQ(GlobalConst({0x7E, 0x00, 0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x0B}),
            0x7FFFFFFFFFFFFFFFu);
  auto global = [](Bytes e) { return Mod({Section(6, Cat({{0x01}, e, {0x0B}}))}); };
  ExpectMalformed(global({0x7F, 0x00, 0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}), "integer representation too long");
  ExpectMalformed(global({0x7F, 0x00, 0x41, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F}), "integer too large");
  ExpectMalformed(global({0x7F, 0x00, 0x41, 0x80, 0x80, 0x80, 0x80, 0x70}), "integer too large");
  ExpectMalformed(global({0x7E, 0x00, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}),
                  "integer representation too long");
  ExpectMalformed(global({0x7E, 0x00, 0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}),
                  "integer too large");
  ExpectMalformed(global({0x7E, 0x00, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7E}),
                  "integer too large");
}

// ---------------------------------------------------------------- UTF-8

TEST(DecoderUtf8, Names) {
  auto export_named = [](Bytes name) {
    return Mod({Section(7, Vec({Cat({Leb(uint32_t(name.size())), name, {0x03, 0x00}})}))});
  };
  // "é", "€", U+10FFFF, empty: all fine (the export index is the validator's business).
  for (Bytes ok : {Bytes{0xC3, 0xA9}, Bytes{0xE2, 0x82, 0xAC}, Bytes{0xF4, 0x8F, 0xBF, 0xBF}, Bytes{}}) {
    EXPECT_TRUE(Decode(export_named(ok)).ok());
  }
  for (Bytes bad : {Bytes{0x80}, Bytes{0xC0, 0x80}, Bytes{0xC3}, Bytes{0xE0, 0x80, 0x80},
                    Bytes{0xED, 0xA0, 0x80}, Bytes{0xF4, 0x90, 0x80, 0x80}, Bytes{0xF8, 0x88, 0x80, 0x80},
                    Bytes{0xFF}, Bytes{0xE2, 0x82}, Bytes{0xE2, 0x28, 0xA1}}) {
    ExpectMalformed(export_named(bad), "malformed UTF-8 encoding", 11);
  }
}

// ---------------------------------------------------------------- bodies

TEST(DecoderCode, ControlAndImmediates) {
  Bytes code = {
      0x02, 0x40,                    // block
      0x03, 0x7F,                    //   loop (result i32)
      0x41, 0x01,                    //     i32.const 1
      0x04, 0x81, 0x80, 0x80, 0x80, 0x00,  // if (type 1), non-minimal s33
      0x05,                          //     else
      0x0B,                          //     end
      0x0E, 0x02, 0x00, 0x01, 0x02,  //     br_table 0 1 2
      0x0B,                          //   end
      0x0B,                          // end
      0x11, 0x03, 0x01,              // call_indirect type 3 table 1
      0x28, 0x02, 0x90, 0x03,        // i32.load align=2 offset=400
      0x42, 0x7F,                    // i64.const -1
      0x43, 0x00, 0x00, 0x80, 0x3F,  // f32.const 1.0
      0x44, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F,  // f64.const 1.0
      0xD0, 0x6F,                    // ref.null extern
      0x1C, 0x01, 0x7E,              // select (result i64)
      0x3F, 0x00,                    // memory.size
      0xFC, 0x0E, 0x01, 0x02,        // table.copy 1 2
      0xFC, 0x0C, 0x04, 0x05,        // table.init elem 4 table 5
      0xFC, 0x11, 0x07,              // table.fill 7
      0x0B,
  };
  FunctionCode c = CodeOf(FuncModule(code));
  const std::vector<Opcode> ops = {
      Opcode::Block, Opcode::Loop, Opcode::I32Const, Opcode::If, Opcode::Else, Opcode::End,
      Opcode::BrTable, Opcode::End, Opcode::End, Opcode::CallIndirect, Opcode::I32Load,
      Opcode::I64Const, Opcode::F32Const, Opcode::F64Const, Opcode::RefNull, Opcode::SelectT,
      Opcode::MemorySize, Opcode::TableCopy, Opcode::TableInit, Opcode::TableFill, Opcode::End};
  ASSERT_EQ(c.instrs.size(), ops.size());
  for (size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(c.instrs[i].op, ops[i]) << i;
  EXPECT_EQ(c.instrs[0].block.kind, BlockType::Kind::Empty);
  EXPECT_EQ(c.instrs[1].block.kind, BlockType::Kind::Value);
  EXPECT_EQ(c.instrs[1].block.value, ValType::I32);
  EXPECT_EQ(c.instrs[3].block.kind, BlockType::Kind::TypeIndex);
  EXPECT_EQ(c.instrs[3].block.type_index, 1u);
  EXPECT_EQ(c.instrs[6].a, 0u);
  EXPECT_EQ(c.instrs[6].b, 3u);
  EXPECT_EQ(c.br_targets, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(c.instrs[9].a, 3u);
  EXPECT_EQ(c.instrs[9].b, 1u);
  EXPECT_EQ(c.instrs[10].a, 2u);
  EXPECT_EQ(c.instrs[10].imm, 400u);
  EXPECT_EQ(c.instrs[11].imm, 0xFFFFFFFFFFFFFFFFu);
  EXPECT_EQ(c.instrs[12].imm, 0x3F800000u);
  EXPECT_EQ(c.instrs[13].imm, 0x3FF0000000000000u);
  EXPECT_EQ(c.instrs[14].ref, ValType::ExternRef);
  EXPECT_EQ(c.instrs[15].a, 1u);
  EXPECT_EQ(c.instrs[15].ref, ValType::I64);
  EXPECT_EQ(c.instrs[17].a, 1u);
  EXPECT_EQ(c.instrs[17].b, 2u);
  EXPECT_EQ(c.instrs[18].a, 4u);
  EXPECT_EQ(c.instrs[18].b, 5u);
  EXPECT_EQ(c.instrs[19].a, 7u);
  // Offsets are module offsets of each opcode; the body's first opcode
  // follows the one-byte local count.
  Module m = DecodeOk(FuncModule(code));
  EXPECT_EQ(c.instrs[0].offset, m.functions[0].code_begin);
  EXPECT_EQ(c.instrs.back().offset, m.functions[0].code_end - 1);
}

TEST(DecoderCode, BulkMemoryNeedsDataCountWhenThereIsData) {
  Bytes data = Section(11, Vec({Cat({{0x01}, Name("x")})}));
  Bytes code = {0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x08, 0x00, 0x00, 0xFC, 0x09, 0x00, 0x0B};
  FunctionCode c = CodeOf(FuncModule(code, {kMemory, Section(12, {0x01})}, {data}));
  EXPECT_EQ(c.instrs[3].op, Opcode::MemoryInit);
  EXPECT_EQ(c.instrs[4].op, Opcode::DataDrop);
  ExpectMalformed(FuncModule(code, {kMemory}, {data}), "data count section required");
  ExpectMalformed(FuncModule({0xFC, 0x09, 0x00, 0x0B}, {kMemory}, {data}), "data count section required");
  // Without any data the index cannot exist: left to the validator.
  EXPECT_EQ(DecodeAll(FuncModule({0xFC, 0x09, 0x00, 0x0B})), "");
}

TEST(DecoderCode, ZeroBytes) {
  ExpectMalformed(FuncModule({0x3F, 0x01, 0x1A, 0x0B}), "zero byte expected");
  ExpectMalformed(FuncModule({0x41, 0x00, 0x40, 0x80, 0x00, 0x1A, 0x0B}), "zero byte expected");
  ExpectMalformed(FuncModule({0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x0A, 0x00, 0x01, 0x0B}),
                  "zero byte expected");
  ExpectMalformed(FuncModule({0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x0B, 0x01, 0x0B}),
                  "zero byte expected");
  ExpectMalformed(FuncModule({0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x08, 0x00, 0x01, 0x0B},
                             {kMemory, Section(12, {0x01})}, {Section(11, Vec({Cat({{0x01}, Name("")})}))}),
                  "zero byte expected");
  // call_indirect's second immediate is a table index in 2.0, not a zero byte.
  EXPECT_EQ(CodeOf(FuncModule({0x41, 0x00, 0x11, 0x00, 0x81, 0x00, 0x0B})).instrs[1].b, 1u);
}

TEST(DecoderCode, Opcodes) {
  ExpectMalformed(FuncModule({0x06, 0x0B}), "illegal opcode 0x06");
  ExpectMalformed(FuncModule({0xFC, 0x12, 0x0B}), "illegal opcode 0xfc 0x12");
  ExpectMalformed(FuncModule({0xFD, 0x0C, 0x0B}), "unsupported: simd (opcode 0xFD)");
  // Sub-opcodes are LEB128: a non-minimal encoding is fine.
  EXPECT_EQ(CodeOf(FuncModule({0x43, 0, 0, 0, 0, 0xFC, 0x80, 0x00, 0x1A, 0x0B})).instrs[1].op,
            Opcode::I32TruncSatF32S);
  ExpectMalformed(FuncModule({0xD0, 0x7F, 0x0B}), "malformed reference type");
  ExpectMalformed(FuncModule({0x02, 0x7A, 0x0B, 0x0B}), "malformed value type");
  ExpectMalformed(FuncModule({0x02, 0xFF, 0x7F, 0x0B, 0x0B}), "malformed block type");
}

TEST(DecoderCode, NestingAndEnd) {
  ExpectMalformed(FuncModule({0x41, 0x01, 0x1A}), "END opcode expected");
  ExpectMalformed(FuncModule({0x02, 0x40, 0x0B}), "END opcode expected");
  ExpectMalformed(FuncModule({0x0B, 0x01}), "section size mismatch");
  ExpectMalformed(FuncModule({0x05, 0x0B}), "END opcode expected");
  ExpectMalformed(FuncModule({0x41, 0x00, 0x04, 0x40, 0x05, 0x05, 0x0B, 0x0B}), "END opcode expected");
  ExpectMalformed(FuncModule({0x41}), "unexpected end of section or function");
  ExpectMalformed(FuncModule({0x0E, 0x02, 0x00}), "unexpected end of section or function");
  ExpectMalformed(FuncModule({0x0E, 0xFF, 0xFF, 0x03, 0x0B}), "too many br_table targets");
  ExpectMalformed(Mod({kVoidType, kOneFunc, Section(10, Vec({Body({0x00})}))}), "END opcode expected");
}

TEST(DecoderLimits, LocalsAcrossTheModuleAreCapped) {
  // 400 bodies of 7 bytes each declaring 50,000 locals would expand to
  // 20 MB; the module-wide cap stops it at 2^24 locals.
  Bytes funcs = Leb(400), bodies = Leb(400);
  for (int i = 0; i < 400; ++i) {
    funcs.push_back(0x00);
    Bytes b = Body(Cat({{0x01}, Leb(50'000), {0x7F, 0x0B}}));
    bodies.insert(bodies.end(), b.begin(), b.end());
  }
  ExpectMalformed(Mod({kVoidType, Section(3, funcs), Section(10, bodies)}), "too many locals in the module");
}

TEST(DecoderCode, IndexOutOfRange) {
  Module m = DecodeOk(FuncModule({0x0B}));
  EXPECT_FALSE(DecodeFunctionCode(m, 1).ok());
}

// ---------------------------------------------------------------- robustness

TEST(DecoderLimits, LyingCountsDoNotAllocate) {
  // Each declares (nearly) the maximum count with a handful of bytes: the
  // decoder must fail on the missing bytes without reserving the count.
  for (uint8_t id : {1, 2, 3, 4, 5, 6, 7, 9, 11}) {
    SCOPED_TRACE(int(id));
    Bytes payload = Cat({Leb(99'999), {0x00}});
    EXPECT_FALSE(Decode(Mod({Section(id, payload)})).ok());
  }
  ExpectMalformed(Mod({Section(1, Cat({Leb(0xFFFFFFFF)}))}), "too many types");
  ExpectMalformed(Mod({Section(2, Cat({Leb(0xFFFFFFFF)}))}), "too many imports");
  ExpectMalformed(Mod({Section(1, Vec({Cat({{0x60}, Leb(1001)})}))}), "too many parameters");
}

// The sections of a module that uses every section, for the sweeps below.
std::vector<Bytes> RichSections() {
  return {
      Section(0, Cat({Name("c"), {0x01}})),
      Section(1, Vec({{0x60, 0x01, 0x7F, 0x01, 0x7F}, {0x60, 0x00, 0x00}})),
      Section(2, Vec({Cat({Name("env"), Name("f"), {0x00, 0x01}})})),
      Section(3, Vec({{0x00}, {0x01}})),
      Section(4, Vec({{0x70, 0x01, 0x02, 0x10}})),
      Section(5, Vec({{0x01, 0x01, 0x02}})),
      Section(6, Vec({{0x7F, 0x01, 0x41, 0x05, 0x0B}})),
      Section(7, Vec({Cat({Name("main"), {0x00, 0x01}})})),
      Section(8, {0x02}),
      Section(9, Vec({Cat({{0x00, 0x41, 0x00, 0x0B}, Vec({{0x01}, {0x02}})}),
                      Cat({{0x05, 0x70}, Vec({{0xD2, 0x00, 0x0B}})})})),
      Section(12, {0x02}),
      Section(10, Vec({Body({0x01, 0x01, 0x7E, 0x20, 0x00, 0x02, 0x7F, 0x41, 0x02, 0x0B, 0x6A,
                             0x0E, 0x01, 0x00, 0x00, 0x0B}),
                       Body({0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x01, 0xFC, 0x08, 0x01, 0x00,
                             0x41, 0x00, 0x28, 0x02, 0x04, 0x1A, 0x0B})})),
      Section(11, Vec({Cat({{0x00, 0x41, 0x10, 0x0B}, Name("hi")}), Cat({{0x01}, Name("yo")})})),
  };
}

Bytes RichModule() {
  Bytes out = kHeader;
  for (const Bytes& s : RichSections()) out.insert(out.end(), s.begin(), s.end());
  return out;
}

TEST(DecoderRobustness, RichModuleDecodes) { EXPECT_EQ(DecodeAll(RichModule()), ""); }

// Every truncation of a valid module fails with one clean message, except
// cuts between sections that leave a shorter module that is itself valid.
TEST(DecoderRobustness, EveryTruncationFailsCleanly) {
  Bytes full = RichModule();
  std::vector<size_t> boundaries = {kHeader.size()};
  for (const Bytes& s : RichSections()) boundaries.push_back(boundaries.back() + s.size());
  int failed = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    std::string err = DecodeAll(Bytes(full.begin(), full.begin() + n));
    if (err.empty()) {
      EXPECT_NE(std::find(boundaries.begin(), boundaries.end(), n), boundaries.end()) << n;
      continue;
    }
    ++failed;
    EXPECT_EQ(err.rfind("malformed module at byte 0x", 0), 0u) << err;
  }
  EXPECT_GT(failed, int(full.size() - boundaries.size()) - 1);
}

// Every single-byte change either decodes or fails cleanly (run under the
// sanitizers to catch out-of-bounds reads).
TEST(DecoderRobustness, EveryByteMutationIsSafe) {
  Bytes full = RichModule();
  for (size_t i = 0; i < full.size(); ++i) {
    for (uint8_t v : {0x00, 0x01, 0x0B, 0x40, 0x7F, 0x80, 0xFF}) {
      Bytes mutated = full;
      mutated[i] = v;
      std::string err = DecodeAll(mutated);
      if (!err.empty()) {
        EXPECT_EQ(err.rfind("malformed module at byte 0x", 0), 0u) << err;
      }
    }
  }
}

}  // namespace
}  // namespace ampoule::wasm
