// The translator's internal form: fusion, slot use, dead code, and the
// fuel it attaches. Behaviour is checked through the operations emitted.
#include "ampoule/wasm/translator.h"

#include <gtest/gtest.h>

#include "ampoule/wasm/interpreter_test_util.h"

namespace ampoule::wasm {
namespace {

using namespace testing;
using Op = Opcode;
using VT = ValType;

const FuncType kI32I32ToI32{{VT::I32, VT::I32}, {VT::I32}};
const FuncType kI32ToI32{{VT::I32}, {VT::I32}};
const FuncType kVoid{};
const FuncType kToI32{{}, {VT::I32}};

std::vector<IOp> OpsOf(const FuncType& type, std::vector<VT> locals, std::vector<Instr> body,
                       bool with_memory = false) {
  ModuleBuilder b;
  if (with_memory) b.AddMemory(1);
  b.AddFunc(type, std::move(locals), std::move(body));
  auto m = b.Build();
  if (!m) return {};
  return CompiledOps(*m->functions[0]);
}

TEST(Translate, LocalsAreReadInPlaceAndTheResultWrittenToTheLocal) {
  // local.get 0; local.get 1; i32.add; local.set 2 is one instruction.
  auto ops = OpsOf(kI32I32ToI32, {VT::I32},
                   {Get(0), Get(1), I(Op::I32Add), Set(2), Get(2), End()});
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Add32, IOp::Return1}));
}

TEST(Translate, ReturnedValueIsComputedIntoTheResultSlot) {
  auto ops = OpsOf(kI32I32ToI32, {}, {Get(0), Get(1), I(Op::I32Mul), End()});
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Mul32, IOp::Return}));
}

TEST(Translate, ConstantOperandsSelectImmediateForms) {
  EXPECT_EQ(OpsOf(kI32ToI32, {}, {Get(0), I32(5), I(Op::I32Add), End()}),
            (std::vector<IOp>{IOp::Add32I, IOp::Return}));
  // Constant on the left of a commutative operation.
  EXPECT_EQ(OpsOf(kI32ToI32, {}, {I32(5), Get(0), I(Op::I32Xor), End()}),
            (std::vector<IOp>{IOp::Xor32I, IOp::Return}));
  // x - k is x + (-k).
  EXPECT_EQ(OpsOf(kI32ToI32, {}, {Get(0), I32(5), I(Op::I32Sub), End()}),
            (std::vector<IOp>{IOp::Add32I, IOp::Return}));
  // k < x is x > k.
  EXPECT_EQ(OpsOf(kI32ToI32, {}, {I32(5), Get(0), I(Op::I32LtS), End()}),
            (std::vector<IOp>{IOp::GtS32I, IOp::Return}));
}

TEST(Translate, CompareAndBranchFuse) {
  auto ops = OpsOf(kI32ToI32, {},
                   {Block(Op::Block), Get(0), I32(10), I(Op::I32LtS), I(Op::BrIf, 0), I32(1),
                    Set(0), End(), Get(0), End()});
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops[0], IOp::BrLtS32I);
}

TEST(Translate, EqzBeforeIfBranchesOnTheValueItself) {
  auto ops = OpsOf(kI32ToI32, {},
                   {Get(0), I(Op::I32Eqz), Block(Op::If, VT::I32), I32(1), I(Op::Else), I32(2), End(),
                    End()});
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops[0], IOp::BrNz);  // to the else arm when x != 0
}

TEST(Translate, MaskTestBeforeBranchFuses) {
  auto ops = OpsOf(kI32ToI32, {},
                   {Block(Op::Block), Get(0), I32(4), I(Op::I32And), I(Op::BrIf, 0), I32(9), Set(0),
                    End(), Get(0), End()});
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops[0], IOp::BrTestNz32I);
}

TEST(Translate, AddedAddressFoldsIntoTheLoad) {
  auto ops = OpsOf(kI32I32ToI32, {}, {Get(0), Get(1), I(Op::I32Add), Mem(Op::I32Load, 8), End()},
                   /*with_memory=*/true);
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Load32Add, IOp::Return}));
  ops = OpsOf(kI32ToI32, {}, {Get(0), I32(3), I(Op::I32Add), Mem(Op::I32Load8U), End()}, true);
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Load8UAddI, IOp::Return}));
}

TEST(Translate, StoreOfAConstantNeedsNoMaterialisation) {
  auto ops = OpsOf(FuncType{{VT::I32}, {}}, {}, {Get(0), I32(0), Mem(Op::I32Store, 4), End()}, true);
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Store32I, IOp::Return}));
}

TEST(Translate, CodeAfterAnUnconditionalBranchIsDropped) {
  auto ops = OpsOf(kI32ToI32, {},
                   {Block(Op::Block), I(Op::Br, 0), Get(0), I32(1), I(Op::I32Add), Set(0), I(Op::Unreachable),
                    End(), Get(0), End()});
  for (IOp op : ops) {
    EXPECT_NE(op, IOp::Add32I);
    EXPECT_NE(op, IOp::Unreachable);
  }
}

TEST(Translate, ReinterpretationsEmitNothing) {
  auto ops = OpsOf(FuncType{{VT::I32, VT::F32}, {VT::I32}}, {}, {Get(1), I(Op::I32ReinterpretF32), End()});
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Return1}));
}

TEST(Translate, DeferredReadOfALocalIsSavedBeforeTheLocalIsWritten) {
  // local.get 0 is still on the stack when local 0 is written: it must be
  // copied out first (the classic deferred local.get hazard).
  auto ops = OpsOf(kI32ToI32, {}, {Get(0), I32(7), Set(0), End()});
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Copy, IOp::Const32, IOp::Return1}));
}

TEST(Translate, ConstantZeroIsReadFromTheZeroSlot) {
  // select(x, 0, c): no instruction materialises the 0.
  auto ops = OpsOf(kI32I32ToI32, {}, {Get(0), I32(0), Get(1), I(Op::Select), End()});
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Select, IOp::Return}));
}

TEST(Translate, ConstantAddressNeedsNoRegister) {
  auto ops = OpsOf(kToI32, {}, {I32(1024), Mem(Op::I32Load, 8), End()}, true);
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Load32, IOp::Return}));
  ops = OpsOf(FuncType{{VT::I32}, {}}, {}, {I32(1024), Get(0), Mem(Op::I32Store8, 1), End()}, true);
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Store8, IOp::Return}));
}

TEST(Translate, ShiftPairIsSignExtension) {
  auto ops = OpsOf(kI32ToI32, {}, {Get(0), I32(24), I(Op::I32Shl), I32(24), I(Op::I32ShrS), End()});
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Extend8S32, IOp::Return}));
  // Different shift counts are two shifts.
  ops = OpsOf(kI32ToI32, {}, {Get(0), I32(24), I(Op::I32Shl), I32(16), I(Op::I32ShrS), End()});
  EXPECT_EQ(ops, (std::vector<IOp>{IOp::Shl32I, IOp::ShrS32I, IOp::Return}));
}

TEST(Translate, CountdownBranchJoinsTheDecrement) {
  // loop: x = x - 1; br_if (x != 0)
  auto ops = OpsOf(kI32ToI32, {},
                   {Block(Op::Loop), Get(0), I32(-1), I(Op::I32Add), Tee(0), I(Op::BrIf, 0), End(), Get(0), End()});
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops[0], IOp::Add32IBrNz);
}

TEST(Translate, LocalArgumentsAreCopiedByTheCall) {
  ModuleBuilder b;
  uint32_t callee = b.AddFunc(kI32I32ToI32, {}, {Get(0), End()});
  b.AddFunc(kI32I32ToI32, {}, {Get(1), Get(0), I(Op::Call, callee), End()});
  auto m = b.Build();
  ASSERT_TRUE(m);
  EXPECT_EQ(CompiledOps(*m->functions[1]), (std::vector<IOp>{IOp::CallArgs, IOp::Return1}));
}

TEST(Translate, AdjacentLoadsPairUnlessTheSecondIsABranchTarget) {
  ModuleBuilder b;
  b.AddMemory(1);
  const FuncType type{{VT::I32, VT::I32}, {VT::I32}};
  // Two loads into locals: one paired instruction.
  b.AddFunc(type, {VT::I32, VT::I32},
            {Get(0), Mem(Op::I32Load), Set(2), Get(1), Mem(Op::I32Load, 4), Set(3), Get(2), Get(3), I(Op::I32Add),
             End()});
  // The same, but the second load starts a loop: not paired.
  b.AddFunc(type, {VT::I32, VT::I32},
            {Get(0), Mem(Op::I32Load), Set(2), Block(Op::Loop), Get(1), Mem(Op::I32Load, 4), Set(3), Get(3),
             I(Op::BrIf, 0), End(), Get(2), End()});
  auto m = b.Build();
  ASSERT_TRUE(m);
  std::vector<IOp> paired = CompiledOps(*m->functions[0]);
  ASSERT_FALSE(paired.empty());
  EXPECT_EQ(paired[0], IOp::Load32_Load32);
  std::vector<IOp> unpaired = CompiledOps(*m->functions[1]);
  ASSERT_GE(unpaired.size(), 2u);
  EXPECT_EQ(unpaired[0], IOp::Load32);
  EXPECT_EQ(unpaired[1], IOp::Load32BrNz);
}

TEST(Translate, EntryFuelIsTheInputCostOfTheFirstBlock) {
  ModuleBuilder b;
  // local.get(1) local.get(1) i32.add(1) local.set(1) end(0) = 4
  b.AddFunc(kI32I32ToI32, {VT::I32}, {Get(0), Get(1), I(Op::I32Add), Set(2), Get(2), End()});
  auto m = b.Build();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->functions[0]->entry_fuel, 5u);
}

TEST(Translate, OperandsNameFrameSlots) {
  ModuleBuilder b;
  b.AddFunc(kI32I32ToI32, {VT::I64}, {Get(0), Get(1), I(Op::I32Add), I32(3), I(Op::I32Mul), End()});
  auto m = b.Build();
  ASSERT_TRUE(m);
  const CompiledFunction& f = *m->functions[0];
  EXPECT_EQ(f.num_params, 2u);
  EXPECT_EQ(f.num_locals, 2u);  // the i64 and the zero slot (3)
  EXPECT_EQ(f.first_stack_slot, 4u);
  // Add32 writes the first stack slot; Mul32I writes the result slot 0.
  EXPECT_EQ(ListCompiledFunction(f), "0: Add32 4 0 1\n5: Mul32I 0 4 3\n10: Return\n");
}

TEST(Translate, TooManyLocalsIsAnErrorNotACrash) {
  Module m;
  m.types.push_back(kVoid);
  m.func_types.push_back(0);
  FunctionBody body;
  body.locals.assign((size_t(1) << 24) + 1, VT::I32);
  m.functions.push_back(std::move(body));
  FunctionCode code;
  code.instrs = {End()};
  core::Result<CompiledFunctionPtr> f = TranslateFunction(m, 0, code);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("too many locals"), std::string::npos) << f.message();
}

}  // namespace
}  // namespace ampoule::wasm
