#include "ampoule/wasm/validator.h"

#include <gtest/gtest.h>

#include "ampoule/wasm/decoder.h"
#include "ampoule/wasm/validator_internal.h"

namespace ampoule::wasm {
namespace {

using VT = ValType;
using Op = Opcode;

Instr I(Op op, uint32_t a = 0, uint32_t b = 0) {
  Instr in;
  in.op = op;
  in.a = a;
  in.b = b;
  return in;
}
Instr Ref(Op op, VT t) {
  Instr in = I(op);
  in.ref = t;
  return in;
}
Instr Blk(Op op, VT result) {
  Instr in = I(op);
  in.block.kind = BlockType::Kind::Value;
  in.block.value = result;
  return in;
}
Instr BlkType(Op op, uint32_t type_index) {
  Instr in = I(op);
  in.block.kind = BlockType::Kind::TypeIndex;
  in.block.type_index = type_index;
  return in;
}
Instr Load(Op op, uint32_t align) { return I(op, align); }

// A module with one defined function of type 0 (`type`); more types and
// functions can be added by the test.
Module OneFunc(FuncType type, std::vector<VT> locals = {}) {
  Module m;
  m.types.push_back(std::move(type));
  m.func_types.push_back(0);
  FunctionBody body;
  body.locals = std::move(locals);
  m.functions.push_back(body);
  return m;
}

core::Status Check(const Module& m, std::vector<Instr> instrs, std::vector<uint32_t> br = {}) {
  FunctionCode code;
  uint32_t offset = 0x20;
  for (Instr& in : instrs) in.offset = offset++;
  code.instrs = std::move(instrs);
  code.br_targets = std::move(br);
  return ValidateFunction(m, 0, code);
}

void ExpectError(const core::Status& s, const std::string& fragment) {
  ASSERT_FALSE(s.ok()) << "expected an error containing: " << fragment;
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

const FuncType kVoid{};
const FuncType kToI32{{}, {VT::I32}};

TEST(ValidateFunction, EmptyBodyIsValid) {
  EXPECT_TRUE(Check(OneFunc(kVoid), {I(Op::End)}).ok());
}

TEST(ValidateFunction, NumericOpsUseTheOpcodeTable) {
  Module m = OneFunc(kToI32);
  EXPECT_TRUE(Check(m, {I(Op::I32Const), I(Op::I32Const), I(Op::I32Add), I(Op::End)}).ok());
  EXPECT_TRUE(Check(m, {I(Op::F64Const), I(Op::F64Const), I(Op::F64Lt), I(Op::End)}).ok());
  EXPECT_TRUE(Check(m, {I(Op::F32Const), I(Op::I32TruncSatF32U), I(Op::I32Extend8S),
                        I(Op::End)}).ok());
}

TEST(ValidateFunction, MismatchMessageNamesFunctionOffsetAndTypes) {
  Module m = OneFunc(kToI32);
  m.num_imported_funcs = 2;  // the function's index in the function space is 2
  core::Status s = Check(m, {I(Op::I32Const), I(Op::F64Const), I(Op::I32Add), I(Op::End)});
  ExpectError(s, "invalid module: function 2 at byte 0x22: type mismatch in i32.add: "
                 "expected i32, got f64");
}

TEST(ValidateFunction, EmptyStackIsAMismatch) {
  ExpectError(Check(OneFunc(kToI32), {I(Op::I32Const), I(Op::I32Add), I(Op::End)}),
              "type mismatch in i32.add: expected i32, got nothing");
  ExpectError(Check(OneFunc(kToI32), {I(Op::End)}), "type mismatch");
}

TEST(ValidateFunction, ExtraValuesAtEndAreAMismatch) {
  ExpectError(Check(OneFunc(kVoid), {I(Op::I32Const), I(Op::End)}), "type mismatch in end");
  ExpectError(Check(OneFunc(kToI32), {I(Op::I32Const), I(Op::I32Const), I(Op::End)}),
              "1 extra value");
}

TEST(ValidateFunction, StackIsPolymorphicAfterUnreachableBrAndReturn) {
  Module m = OneFunc(kToI32);
  EXPECT_TRUE(Check(m, {I(Op::Unreachable), I(Op::I32Add), I(Op::End)}).ok());
  EXPECT_TRUE(Check(m, {I(Op::I32Const), I(Op::Return), I(Op::Select), I(Op::End)}).ok());
  ExpectError(Check(m, {I(Op::Return), I(Op::End)}), "type mismatch in return");
  EXPECT_TRUE(Check(m, {Blk(Op::Block, VT::I32), I(Op::I32Const), I(Op::Br, 0), I(Op::F64Add),
                        I(Op::Drop), I(Op::I32Const), I(Op::End), I(Op::End)}).ok());
  // Known values above the polymorphic base are still checked.
  ExpectError(Check(m, {I(Op::Unreachable), I(Op::F32Const), I(Op::I32Eqz), I(Op::End)}),
              "expected i32, got f32");
  ExpectError(Check(m, {I(Op::Unreachable), I(Op::F32Const), I(Op::End)}), "type mismatch");
}

TEST(ValidateFunction, MultiValueBlocksTakeParamsFromTheStack) {
  Module m = OneFunc(kToI32);
  m.types.push_back(FuncType{{VT::I32, VT::I32}, {VT::I32}});
  EXPECT_TRUE(Check(m, {I(Op::I32Const), I(Op::I32Const), BlkType(Op::Block, 1), I(Op::I32Add),
                        I(Op::End), I(Op::End)}).ok());
  ExpectError(Check(m, {I(Op::I32Const), BlkType(Op::Block, 1), I(Op::I32Add), I(Op::End),
                        I(Op::End)}),
              "type mismatch in block");
  ExpectError(Check(m, {BlkType(Op::Block, 9), I(Op::End), I(Op::End)}), "unknown type 9");
}

TEST(ValidateFunction, LoopLabelCarriesParams) {
  Module m = OneFunc(kToI32);
  m.types.push_back(FuncType{{VT::I32}, {VT::I32}});
  // br_if 0 inside the loop jumps back with the loop's param, an i32.
  EXPECT_TRUE(Check(m, {I(Op::I32Const), BlkType(Op::Loop, 1), I(Op::I32Const), I(Op::BrIf, 0),
                        I(Op::End), I(Op::End)}).ok());
  m.types.push_back(FuncType{{}, {VT::I32}});
  // A loop of type [] -> [i32]: its label carries nothing.
  EXPECT_TRUE(Check(m, {BlkType(Op::Loop, 2), I(Op::I32Const), I(Op::BrIf, 0), I(Op::I32Const),
                        I(Op::End), I(Op::End)}).ok());
}

TEST(ValidateFunction, IfWithoutElseNeedsEqualParamsAndResults) {
  Module m = OneFunc(kToI32);
  EXPECT_TRUE(Check(m, {I(Op::I32Const), Blk(Op::If, VT::I32), I(Op::I32Const), I(Op::Else),
                        I(Op::I32Const), I(Op::End), I(Op::End)}).ok());
  ExpectError(Check(m, {I(Op::I32Const), Blk(Op::If, VT::I32), I(Op::I32Const), I(Op::End),
                        I(Op::End)}),
              "type mismatch in if without else");
  ExpectError(Check(m, {I(Op::Else), I(Op::End)}), "else without a matching if");
}

TEST(ValidateFunction, BrTableLabelsMustAgree) {
  Module m = OneFunc(kVoid);
  std::vector<Instr> body = {Blk(Op::Block, VT::I32), I(Op::Block), I(Op::I32Const),
                             I(Op::I32Const), I(Op::BrTable, 0, 2), I(Op::End), I(Op::I32Const),
                             I(Op::End), I(Op::Drop), I(Op::End)};
  ExpectError(Check(m, body, {0, 1}), "type mismatch in br_table");
  ExpectError(Check(m, body, {0, 7}), "unknown label 7");
  EXPECT_TRUE(Check(m, body, {1, 1}).ok());
}

TEST(ValidateFunction, IndexSpacesAreChecked) {
  Module m = OneFunc(kVoid, {VT::I64});
  ExpectError(Check(m, {I(Op::LocalGet, 1), I(Op::Drop), I(Op::End)}), "unknown local 1");
  ExpectError(Check(m, {I(Op::GlobalGet, 0), I(Op::Drop), I(Op::End)}), "unknown global 0");
  ExpectError(Check(m, {I(Op::Call, 3), I(Op::End)}), "unknown function 3");
  ExpectError(Check(m, {I(Op::Br, 1), I(Op::End)}), "unknown label 1");
  ExpectError(Check(m, {I(Op::I32Const), I(Op::TableGet, 0), I(Op::Drop), I(Op::End)}),
              "unknown table 0");
  ExpectError(Check(m, {I(Op::ElemDrop, 0), I(Op::End)}), "unknown elem segment 0");
  EXPECT_TRUE(Check(m, {I(Op::LocalGet, 0), I(Op::LocalTee, 0), I(Op::LocalSet, 0),
                        I(Op::End)}).ok());
}

TEST(ValidateFunction, ImmutableGlobalCannotBeSet) {
  Module m = OneFunc(kVoid);
  m.global_types.push_back(GlobalType{VT::I32, false});
  m.global_types.push_back(GlobalType{VT::I32, true});
  ExpectError(Check(m, {I(Op::I32Const), I(Op::GlobalSet, 0), I(Op::End)}),
              "global is immutable");
  EXPECT_TRUE(Check(m, {I(Op::I32Const), I(Op::GlobalSet, 1), I(Op::End)}).ok());
}

TEST(ValidateFunction, MemoryInstructionsNeedAMemoryAndNaturalAlignment) {
  Module m = OneFunc(kToI32);
  ExpectError(Check(m, {I(Op::I32Const), Load(Op::I32Load, 2), I(Op::End)}), "unknown memory 0");
  ExpectError(Check(m, {I(Op::MemorySize), I(Op::End)}), "unknown memory 0");
  m.memories.push_back(MemoryType{});
  EXPECT_TRUE(Check(m, {I(Op::I32Const), Load(Op::I32Load, 2), I(Op::End)}).ok());
  ExpectError(Check(m, {I(Op::I32Const), Load(Op::I32Load, 3), I(Op::End)}),
              "alignment must not be larger than natural");
  ExpectError(Check(m, {I(Op::I32Const), Load(Op::I32Load8U, 1), I(Op::End)}),
              "alignment must not be larger than natural");
  EXPECT_TRUE(Check(m, {I(Op::I32Const), Load(Op::I64Load, 3), I(Op::I32WrapI64), I(Op::End)}).ok());
}

TEST(ValidateFunction, BulkMemoryNeedsDataCount) {
  Module m = OneFunc(kVoid);
  m.memories.push_back(MemoryType{});
  std::vector<Instr> init = {I(Op::I32Const), I(Op::I32Const), I(Op::I32Const),
                             I(Op::MemoryInit, 0), I(Op::End)};
  ExpectError(Check(m, init), "unknown data segment 0");
  m.datas.resize(1);
  ExpectError(Check(m, init), "data count section required");
  ExpectError(Check(m, {I(Op::DataDrop, 0), I(Op::End)}), "data count section required");
  m.data_count = 1;
  EXPECT_TRUE(Check(m, init).ok());
  ExpectError(Check(m, {I(Op::DataDrop, 1), I(Op::End)}), "unknown data segment 1");
}

TEST(ValidateFunction, RefFuncMustBeDeclared) {
  Module m = OneFunc(FuncType{{}, {VT::FuncRef}});
  std::vector<Instr> body = {I(Op::RefFunc, 0), I(Op::End)};
  ExpectError(Check(m, body), "undeclared function reference");
  m.declared_func_refs = {0};
  EXPECT_TRUE(Check(m, body).ok());
  ExpectError(Check(m, {I(Op::RefFunc, 5), I(Op::End)}), "unknown function 5");
}

TEST(ValidateFunction, ReferenceInstructions) {
  Module m = OneFunc(kToI32);
  EXPECT_TRUE(Check(m, {Ref(Op::RefNull, VT::ExternRef), I(Op::RefIsNull), I(Op::End)}).ok());
  ExpectError(Check(m, {I(Op::I32Const), I(Op::RefIsNull), I(Op::End)}), "type mismatch");
}

TEST(ValidateFunction, SelectRules) {
  Module m = OneFunc(FuncType{{}, {VT::ExternRef}});
  std::vector<Instr> refs = {Ref(Op::RefNull, VT::ExternRef), Ref(Op::RefNull, VT::ExternRef),
                             I(Op::I32Const)};
  std::vector<Instr> untyped = refs;
  untyped.push_back(I(Op::Select));
  untyped.push_back(I(Op::End));
  ExpectError(Check(m, untyped), "type mismatch in select");
  std::vector<Instr> typed = refs;
  typed.push_back(Ref(Op::SelectT, VT::ExternRef));
  typed.back().a = 1;
  typed.push_back(I(Op::End));
  EXPECT_TRUE(Check(m, typed).ok());
  typed[3].a = 2;
  ExpectError(Check(m, typed), "invalid result arity");

  Module n = OneFunc(kToI32);
  ExpectError(Check(n, {I(Op::I32Const), I(Op::F32Const), I(Op::I32Const), I(Op::Select),
                        I(Op::End)}),
              "type mismatch in select");
}

TEST(ValidateFunction, TablesAndCallIndirect) {
  Module m = OneFunc(kVoid);
  m.tables.push_back(TableType{VT::ExternRef, {}});
  m.tables.push_back(TableType{VT::FuncRef, {}});
  ExpectError(Check(m, {I(Op::I32Const), I(Op::CallIndirect, 0, 0), I(Op::End)}),
              "type mismatch in call_indirect");
  EXPECT_TRUE(Check(m, {I(Op::I32Const), I(Op::CallIndirect, 0, 1), I(Op::End)}).ok());
  std::vector<Instr> copy = {I(Op::I32Const), I(Op::I32Const), I(Op::I32Const),
                             I(Op::TableCopy, 0, 1), I(Op::End)};
  ExpectError(Check(m, copy), "type mismatch in table.copy");
  copy[3].b = 0;
  EXPECT_TRUE(Check(m, copy).ok());
  m.elems.push_back(ElemSegment{});  // funcref
  std::vector<Instr> init = {I(Op::I32Const), I(Op::I32Const), I(Op::I32Const),
                             I(Op::TableInit, 0, 0), I(Op::End)};
  ExpectError(Check(m, init), "type mismatch in table.init");
  init[3].b = 1;
  EXPECT_TRUE(Check(m, init).ok());
  EXPECT_TRUE(Check(m, {Ref(Op::RefNull, VT::ExternRef), I(Op::I32Const), I(Op::TableGrow, 0),
                        I(Op::Drop), I(Op::End)}).ok());
}

TEST(ValidateFunction, SimdIsReportedAsUnsupported) {
  ExpectError(Check(OneFunc(kVoid, {VT::V128}), {I(Op::End)}), "unsupported: simd");
  ExpectError(Check(OneFunc(kVoid), {Blk(Op::Block, VT::V128), I(Op::End), I(Op::End)}),
              "unsupported: simd");
}

TEST(ValidateFunction, OperandStackHasALimit) {
  Module m = OneFunc(kVoid);
  m.types.push_back(FuncType{{}, std::vector<VT>(1000, VT::I32)});
  m.func_types.push_back(1);
  std::vector<Instr> body(2000, I(Op::Call, 1));
  body.push_back(I(Op::End));
  ExpectError(Check(m, body), "operand stack too high");
}

TEST(ValidateFunction, NestingHasALimit) {
  std::vector<Instr> body(validator_internal::kMaxControlDepth + 1, I(Op::Block));
  ExpectError(Check(OneFunc(kVoid), body), "nested too deeply");
}

TEST(ValidateFunction, StacksAreResetBetweenFunctions) {
  Module m = OneFunc(kToI32);
  ExpectError(Check(m, {I(Op::Block), I(Op::Block), I(Op::I32Const), I(Op::F32Add)}),
              "type mismatch");
  EXPECT_TRUE(Check(m, {I(Op::I32Const), I(Op::End)}).ok());
}

TEST(ValidateFunction, OpcodeOutsideTheTableIsRejected) {
  ExpectError(Check(OneFunc(kVoid), {I(Op::kCount), I(Op::End)}), "unknown opcode");
}

TEST(ValidateFunction, BodyMustEndExactlyOnce) {
  ExpectError(Check(OneFunc(kVoid), {I(Op::Nop)}), "does not end");
  ExpectError(Check(OneFunc(kVoid), {I(Op::End), I(Op::Nop)}), "after the function's final end");
}

// ---- Module header -------------------------------------------------------

ConstExpr Const(std::vector<Instr> instrs) {
  ConstExpr e;
  e.instrs = std::move(instrs);
  return e;
}

TEST(ValidateModuleHeader, EmptyModuleIsValid) { EXPECT_TRUE(ValidateModuleHeader(Module{}).ok()); }

TEST(ValidateModuleHeader, GlobalInitialisers) {
  Module m;
  m.num_imported_globals = 2;
  m.global_types = {{VT::I32, false}, {VT::I32, true}, {VT::I32, false}};
  auto with_init = [&](std::vector<Instr> init) {
    Module copy = m;
    copy.globals.push_back(Global{{VT::I32, false}, Const(std::move(init))});
    return ValidateModuleHeader(copy);
  };
  EXPECT_TRUE(with_init({I(Op::I32Const)}).ok());
  EXPECT_TRUE(with_init({I(Op::GlobalGet, 0)}).ok());
  ExpectError(with_init({I(Op::GlobalGet, 1)}), "constant expression required");
  ExpectError(with_init({I(Op::GlobalGet, 2)}), "unknown global 2");
  ExpectError(with_init({I(Op::I32Const), I(Op::I32Const), I(Op::I32Add)}),
              "constant expression required");
  ExpectError(with_init({I(Op::I64Const)}), "type mismatch");
  ExpectError(with_init({}), "type mismatch");
  ExpectError(with_init({I(Op::I32Const), I(Op::I32Const)}), "type mismatch");
}

TEST(ValidateModuleHeader, LimitsAndMemories) {
  Module m;
  m.memories.push_back(MemoryType{{2, 1}});
  ExpectError(ValidateModuleHeader(m), "size minimum must not be greater than maximum");
  m.memories[0] = MemoryType{{65537, std::nullopt}};
  ExpectError(ValidateModuleHeader(m), "memory size must be at most 65536 pages (4GiB)");
  m.memories[0] = MemoryType{{1, 65536}};
  EXPECT_TRUE(ValidateModuleHeader(m).ok());
  m.memories.push_back(MemoryType{});
  ExpectError(ValidateModuleHeader(m), "multiple memories");
  Module t;
  t.tables.push_back(TableType{VT::FuncRef, {5, 4}});
  ExpectError(ValidateModuleHeader(t), "size minimum must not be greater than maximum");
}

TEST(ValidateModuleHeader, ExportsAndStart) {
  Module m = OneFunc(kToI32);
  m.exports = {{"f", ExternKind::Func, 0}, {"g", ExternKind::Func, 0}};
  EXPECT_TRUE(ValidateModuleHeader(m).ok());
  m.exports.push_back({"f", ExternKind::Func, 0});
  ExpectError(ValidateModuleHeader(m), "duplicate export name");
  m.exports = {{"t", ExternKind::Table, 0}};
  ExpectError(ValidateModuleHeader(m), "unknown table 0");
  m.exports.clear();
  m.start = 0;
  ExpectError(ValidateModuleHeader(m), "start function");
  m.start = 4;
  ExpectError(ValidateModuleHeader(m), "unknown function 4");
}

TEST(ValidateModuleHeader, Segments) {
  Module m;
  m.tables.push_back(TableType{VT::ExternRef, {}});
  ElemSegment e;
  e.type = VT::FuncRef;
  e.offset = Const({I(Op::I32Const)});
  m.elems.push_back(e);
  ExpectError(ValidateModuleHeader(m), "type mismatch");
  m.tables[0].elem = VT::FuncRef;
  EXPECT_TRUE(ValidateModuleHeader(m).ok());
  m.elems[0].items.push_back(Const({Ref(Op::RefNull, VT::ExternRef)}));
  ExpectError(ValidateModuleHeader(m), "type mismatch");
  m.elems[0].items[0] = Const({I(Op::RefFunc, 0)});
  ExpectError(ValidateModuleHeader(m), "unknown function 0");
  m.elems[0].table = 1;
  ExpectError(ValidateModuleHeader(m), "unknown table 1");

  Module d;
  DataSegment s;
  s.offset = Const({I(Op::I32Const)});
  d.datas.push_back(s);
  ExpectError(ValidateModuleHeader(d), "unknown memory 0");
  d.memories.push_back(MemoryType{});
  EXPECT_TRUE(ValidateModuleHeader(d).ok());
  d.datas[0].offset = Const({I(Op::I64Const)});
  ExpectError(ValidateModuleHeader(d), "type mismatch");
}

TEST(ValidateModuleHeader, SimdTypesAreUnsupported) {
  ExpectError(ValidateModuleHeader(OneFunc(FuncType{{VT::V128}, {}})), "unsupported: simd");
  Module m;
  m.global_types.push_back({VT::V128, false});
  m.num_imported_globals = 1;
  ExpectError(ValidateModuleHeader(m), "unsupported: simd");
}

// ---- Through the decoder ------------------------------------------------

core::Status DecodeAndValidate(std::vector<uint8_t> bytes) {
  core::Result<Module> m = DecodeModule(bytes);
  if (!m) return m.error();
  return ValidateModule(*m);
}

// (type $pair (func (param i32 i32) (result i32))) (table 1 funcref) (memory 1)
// (elem declare func $f) (func $f (result funcref) (ref.func $f))
// (func (param i32) (result i32) (local.get 0) (i32.const 2)
//   (block (type $pair) (i32.add)) (br_table 0 0 (i32.const 1)))
const std::vector<uint8_t> kValidModule = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x10, 0x03, 0x60, 0x02, 0x7f, 0x7f,
    0x01, 0x7f, 0x60, 0x00, 0x01, 0x70, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x03, 0x03, 0x02, 0x01,
    0x02, 0x04, 0x04, 0x01, 0x70, 0x00, 0x01, 0x05, 0x03, 0x01, 0x00, 0x01, 0x09, 0x05, 0x01,
    0x03, 0x00, 0x01, 0x00, 0x0a, 0x17, 0x02, 0x04, 0x00, 0xd2, 0x00, 0x0b, 0x10, 0x00, 0x20,
    0x00, 0x41, 0x02, 0x02, 0x00, 0x6a, 0x0b, 0x41, 0x01, 0x0e, 0x01, 0x00, 0x00, 0x0b};

TEST(ValidateModule, AcceptsADecodedModule) {
  core::Status s = DecodeAndValidate(kValidModule);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(ValidateModule, RefFuncWithoutDeclarationIsRejected) {
  // (module (func $f (result funcref) (ref.func $f)))
  ExpectError(DecodeAndValidate({0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01,
                                 0x05, 0x01, 0x60, 0x00, 0x01, 0x70, 0x03, 0x02, 0x01,
                                 0x00, 0x0a, 0x06, 0x01, 0x04, 0x00, 0xd2, 0x00, 0x0b}),
              "invalid module: function 0 at byte 0x18: undeclared function reference");
}

TEST(ValidateModule, OverAlignedLoadIsRejected) {
  // (module (memory 1) (func (result i32) (i32.load align=8 (i32.const 0))))
  ExpectError(DecodeAndValidate({0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01,
                                 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01,
                                 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x0a, 0x09, 0x01,
                                 0x07, 0x00, 0x41, 0x00, 0x28, 0x03, 0x00, 0x0b}),
              "alignment must not be larger than natural in i32.load");
}

}  // namespace
}  // namespace ampoule::wasm
