// Execution: results, traps, fuel, limits, host calls and determinism of
// floating point. Modules are written as instruction lists (see
// interpreter_test_util.h); the spec suite covers the breadth.
#include "ampoule/wasm/interpreter.h"

#include <gtest/gtest.h>

#include "ampoule/wasm/fuel.h"
#include "ampoule/wasm/interpreter_test_util.h"

namespace ampoule::wasm {
namespace {

using namespace testing;
using Op = Opcode;
using VT = ValType;

const FuncType kVoid{};
const FuncType kToI32{{}, {VT::I32}};
const FuncType kI32ToI32{{VT::I32}, {VT::I32}};
const FuncType kI32I32ToI32{{VT::I32, VT::I32}, {VT::I32}};

uint32_t ResultI32(const Outcome& o) {
  EXPECT_EQ(o.stop, StopReason::kReturned) << o.message;
  return o.results.empty() ? 0xdeadbeef : o.results[0].i32();
}
uint64_t ResultBits(const Outcome& o) {
  EXPECT_EQ(o.stop, StopReason::kReturned) << o.message;
  return o.results.empty() ? 0xdeadbeef : o.results[0].bits;
}
void ExpectTrap(const Outcome& o, TrapKind kind) {
  EXPECT_EQ(o.stop, StopReason::kTrap);
  EXPECT_EQ(o.trap, kind) << TrapName(o.trap) << ": " << o.message;
}

// One function of `type` in a module with one page of memory.
Harness Single(const FuncType& type, std::vector<VT> locals, std::vector<Instr> body,
               StoreLimits limits = {}) {
  ModuleBuilder b;
  b.AddMemory(1, 2);
  b.AddFunc(type, std::move(locals), std::move(body));
  return Harness(b.Build(), limits);
}

TEST(Execute, IntegerArithmetic) {
  Harness h = Single(kI32I32ToI32, {}, {Get(0), Get(1), I(Op::I32Sub), I32(3), I(Op::I32Mul), End()});
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(10), Value::I32(4)})), 18u);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(0), Value::I32(1)})), uint32_t(-3));
}

TEST(Execute, DivisionTraps) {
  Harness div = Single(kI32I32ToI32, {}, {Get(0), Get(1), I(Op::I32DivS), End()});
  ExpectTrap(div.Call(0, {Value::I32(1), Value::I32(0)}), TrapKind::kIntegerDivideByZero);
  ExpectTrap(div.Call(0, {Value::I32(0x80000000u), Value::I32(-1)}), TrapKind::kIntegerOverflow);
  Harness rem = Single(kI32I32ToI32, {}, {Get(0), Get(1), I(Op::I32RemS), End()});
  EXPECT_EQ(ResultI32(rem.Call(0, {Value::I32(0x80000000u), Value::I32(-1)})), 0u);
  ExpectTrap(rem.Call(0, {Value::I32(5), Value::I32(0)}), TrapKind::kIntegerDivideByZero);
}

TEST(Execute, DeferredLocalReadSeesTheOldValue) {
  // (local.get 0) stays on the stack while local 0 is overwritten.
  Harness a = Single(kI32ToI32, {}, {Get(0), I32(7), Set(0), End()});
  EXPECT_EQ(ResultI32(a.Call(0, {Value::I32(5)})), 5u);
  // The new value is produced by an instruction that could have written
  // local 0 directly, were it not for the pending read.
  Harness b = Single(kI32ToI32, {}, {Get(0), Get(0), I32(1), I(Op::I32Add), Set(0), Get(0), I(Op::I32Mul), End()});
  EXPECT_EQ(ResultI32(b.Call(0, {Value::I32(5)})), 30u);
  // local.tee keeps the new value on the stack.
  Harness c = Single(kI32ToI32, {}, {Get(0), Get(0), I32(2), I(Op::I32Add), Tee(0), I(Op::I32Sub), End()});
  EXPECT_EQ(ResultI32(c.Call(0, {Value::I32(5)})), uint32_t(-2));
}

TEST(Execute, LoopSumsAndChargesEveryIteration) {
  // sum = 0; do { sum += n; } while (--n != 0); return sum
  std::vector<Instr> body = {
      Block(Op::Loop),
      Get(1), Get(0), I(Op::I32Add), Set(1),              // 4
      Get(0), I32(-1), I(Op::I32Add), Tee(0),             // 4
      I(Op::BrIf, 0),                                     // 1
      End(), Get(1), End()};
  Harness h = Single(kI32ToI32, {VT::I32}, body);
  h.store.set_fuel(1'000'000);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(100)})), 5050u);
  // 9 per iteration; the entry block is empty; the block after the loop
  // is local.get + end = 1.
  EXPECT_EQ(h.store.fuel_used(), 100u * 9 + 1);
}

TEST(Execute, OutOfFuelStopsBeforeTheBlockThatDoesNotFit) {
  // Stores the iteration count to memory each time round, forever.
  std::vector<Instr> body = {
      Block(Op::Loop),
      I32(0), Get(0), I32(1), I(Op::I32Add), Tee(0), Mem(Op::I32Store),  // 6
      I(Op::Br, 0),                                                     // 1
      End(), I32(0), End()};
  ModuleBuilder b;
  b.AddMemory(1);
  b.AddFunc(kI32ToI32, {}, body);
  b.AddFunc(kToI32, {}, {I32(0), Mem(Op::I32Load), End()});
  Harness h(b.Build());
  h.store.set_fuel(7 * 10 + 6);
  Outcome o = h.Call(0, {Value::I32(0)});
  EXPECT_EQ(o.stop, StopReason::kOutOfFuel);
  EXPECT_EQ(h.store.fuel_used(), 70u);  // ten whole iterations; the 11th never starts
  h.store.set_fuel(100);
  EXPECT_EQ(ResultI32(h.Call(1)), 10u);
}

TEST(Execute, BulkMemoryChargesPerLength) {
  Harness h = Single(FuncType{{VT::I32}, {}}, {}, {I32(0), I32(0xab), Get(0), I(Op::MemoryFill), End()});
  h.store.set_fuel(1000);
  ASSERT_EQ(h.Call(0, {Value::I32(100)}).stop, StopReason::kReturned);
  // 3 constants/local.get + memory.fill (5), plus one unit per 32 bytes.
  EXPECT_EQ(h.store.fuel_used(), 3 + 5 + BulkMemoryFuel(100));
  // Out of bounds traps before any per-length fuel is charged.
  h.store.set_fuel(1000);
  ExpectTrap(h.Call(0, {Value::I32(70000)}), TrapKind::kMemoryOutOfBounds);
  EXPECT_EQ(h.store.fuel_used(), 8u);
}

TEST(Execute, MemoryBoundsUse64BitArithmetic) {
  Harness h = Single(kI32ToI32, {}, {Get(0), Mem(Op::I32Load, 0xfffffff0u), End()});
  ExpectTrap(h.Call(0, {Value::I32(0x20)}), TrapKind::kMemoryOutOfBounds);  // would wrap to 0x10
  Harness last = Single(kI32ToI32, {}, {Get(0), Mem(Op::I32Load), End()});
  EXPECT_EQ(ResultI32(last.Call(0, {Value::I32(65532)})), 0u);
  ExpectTrap(last.Call(0, {Value::I32(65533)}), TrapKind::kMemoryOutOfBounds);
}

TEST(Execute, MemoryGrowIsSeenByLaterAccesses) {
  // grow by 1, then store at the first byte of the new page and load it.
  std::vector<Instr> body = {I32(1),      I(Op::MemoryGrow), I(Op::Drop), I32(65536), I32(42),
                             Mem(Op::I32Store), I32(65536), Mem(Op::I32Load), End()};
  Harness h = Single(kToI32, {}, body);
  EXPECT_EQ(ResultI32(h.Call(0)), 42u);
  // The module's maximum is 2 pages: a third grow fails with -1.
  Harness g = Single(kToI32, {}, {I32(1), I(Op::MemoryGrow), I(Op::Drop), I32(1), I(Op::MemoryGrow), End()});
  EXPECT_EQ(ResultI32(g.Call(0)), uint32_t(-1));
}

TEST(Execute, MemoryCapFromStoreLimits) {
  StoreLimits limits;
  limits.max_memory_bytes = 65536;
  Harness h = Single(kToI32, {}, {I32(1), I(Op::MemoryGrow), End()}, limits);
  EXPECT_EQ(ResultI32(h.Call(0)), uint32_t(-1));
}

TEST(Execute, CallDepthIsCountedByTheEngine) {
  // f(n) = f(n + 1): unbounded recursion.
  ModuleBuilder b;
  b.AddFunc(kI32ToI32, {}, {Get(0), I32(1), I(Op::I32Add), I(Op::Call, 0), End()});
  StoreLimits limits;
  limits.max_call_depth = 1000;
  Harness h(b.Build(), limits);
  Outcome o = h.Call(0, {Value::I32(0)});
  ExpectTrap(o, TrapKind::kCallStackExhausted);
  EXPECT_EQ(o.message, "call stack exhausted");
  // The store is usable afterwards.
  ModuleBuilder ok;
  ok.AddFunc(kToI32, {}, {I32(3), End()});
  EXPECT_EQ(ResultI32(h.store.Invoke(h.store.Instantiate(ok.Build(), {}).instance->funcs[0], {})), 3u);
}

TEST(Execute, ValueStackIsCountedByTheEngine) {
  ModuleBuilder b;
  std::vector<VT> many(500, VT::I64);
  b.AddFunc(kI32ToI32, many, {Get(0), I32(1), I(Op::I32Add), I(Op::Call, 0), End()});
  StoreLimits limits;
  limits.max_value_stack = 20'000;
  Harness h(b.Build(), limits);
  ExpectTrap(h.Call(0, {Value::I32(0)}), TrapKind::kValueStackExhausted);
}

TEST(Execute, CallIndirectChecks) {
  ModuleBuilder b;
  uint32_t seven = b.AddFunc(kToI32, {}, {I32(7), End()});
  uint32_t other = b.AddFunc(kI32ToI32, {}, {Get(0), End()});
  uint32_t type = b.AddType(kToI32);
  uint32_t dispatch = b.AddFunc(kI32ToI32, {}, {Get(0), I(Op::CallIndirect, type, 0), End()});
  b.AddTable(4, {seven, other, ModuleBuilder::kNone});
  Harness h(b.Build());
  EXPECT_EQ(ResultI32(h.Call(dispatch, {Value::I32(0)})), 7u);
  ExpectTrap(h.Call(dispatch, {Value::I32(1)}), TrapKind::kIndirectCallTypeMismatch);
  ExpectTrap(h.Call(dispatch, {Value::I32(2)}), TrapKind::kUninitializedElement);
  ExpectTrap(h.Call(dispatch, {Value::I32(3)}), TrapKind::kUninitializedElement);  // null slot
  ExpectTrap(h.Call(dispatch, {Value::I32(4)}), TrapKind::kUndefinedElement);
}

TEST(Execute, HostFunctionsOkTrapAndExit) {
  ModuleBuilder b;
  uint32_t host = b.ImportFunc(kI32ToI32);
  uint32_t f = b.AddFunc(kI32ToI32, {}, {Get(0), I(Op::Call, host), I32(1), I(Op::I32Add), End()});
  auto m = b.Build();
  Store store;
  FunctionInstance* fn = store.AddHostFunction(
      kI32ToI32, [](HostContext&, std::span<const uint64_t> args, std::span<uint64_t> results) {
        uint32_t x = uint32_t(args[0]);
        if (x == 13) return HostResult::Trap("unlucky");
        if (x == 99) return HostResult::Exit(3);
        // High bits that an i32 must not carry are dropped by the engine.
        results[0] = (uint64_t(0xffff) << 32) | (x * 2);
        return HostResult::Ok();
      });
  Extern ext;
  ext.kind = ExternKind::Func;
  ext.func = fn;
  InstantiateResult r = store.Instantiate(m, std::vector<Extern>{ext});
  ASSERT_EQ(r.kind, InstantiateResult::Kind::kOk);
  FunctionInstance* func = r.instance->funcs[f];
  Outcome o = store.Invoke(func, std::vector<Value>{Value::I32(20)});
  EXPECT_EQ(ResultBits(o), 41u);
  o = store.Invoke(func, std::vector<Value>{Value::I32(13)});
  ExpectTrap(o, TrapKind::kHost);
  EXPECT_EQ(o.message, "unlucky");
  o = store.Invoke(func, std::vector<Value>{Value::I32(99)});
  EXPECT_EQ(o.stop, StopReason::kExit);
  EXPECT_EQ(o.exit_code, 3);
}

TEST(Execute, HostFunctionCanCallBackIntoWasm) {
  ModuleBuilder b;
  uint32_t host = b.ImportFunc(kI32ToI32);
  uint32_t twice = b.AddFunc(kI32ToI32, {}, {Get(0), Get(0), I(Op::I32Add), End()});
  uint32_t outer = b.AddFunc(kI32ToI32, {VT::I64}, {Get(0), I(Op::Call, host), I32(1), I(Op::I32Add), End()});
  auto m = b.Build();
  Store store;
  Instance* instance = nullptr;
  FunctionInstance* fn = store.AddHostFunction(
      kI32ToI32, [&](HostContext& ctx, std::span<const uint64_t> args, std::span<uint64_t> results) {
        Outcome o = ctx.store.Invoke(instance->funcs[twice], std::vector<Value>{Value::I32(uint32_t(args[0]))});
        if (o.stop != StopReason::kReturned) return HostResult::Trap("inner call failed");
        results[0] = o.results[0].bits;
        return HostResult::Ok();
      });
  Extern ext;
  ext.kind = ExternKind::Func;
  ext.func = fn;
  instance = store.Instantiate(m, std::vector<Extern>{ext}).instance;
  ASSERT_NE(instance, nullptr);
  store.set_fuel(1000);
  EXPECT_EQ(ResultI32(store.Invoke(instance->funcs[outer], std::vector<Value>{Value::I32(20)})), 41u);
  // The nested run is charged to the same budget: the outer block costs
  // 1+5+1+1, the inner 3.
  EXPECT_EQ(store.fuel_used(), 11u);
}

TEST(Execute, NaNsAreCanonicalAndBitOpsKeepPayloads) {
  const FuncType f32_to_f32{{VT::F32}, {VT::F32}};
  const uint32_t payload = 0x7fa00001;  // a signalling NaN with a payload
  Harness add = Single(f32_to_f32, {}, {Get(0), F32(1.0f), I(Op::F32Add), End()});
  EXPECT_EQ(ResultBits(add.Call(0, {Value::F32Bits(payload)})), 0x7fc00000u);
  Harness neg = Single(f32_to_f32, {}, {Get(0), I(Op::F32Neg), End()});
  EXPECT_EQ(ResultBits(neg.Call(0, {Value::F32Bits(payload)})), payload | 0x80000000u);
  Harness sqrt = Single(f32_to_f32, {}, {Get(0), I(Op::F32Sqrt), End()});
  EXPECT_EQ(ResultBits(sqrt.Call(0, {Value::F32(-1.0f)})), 0x7fc00000u);
  const FuncType f64_to_f32{{VT::F64}, {VT::F32}};
  Harness demote = Single(f64_to_f32, {}, {Get(0), I(Op::F32DemoteF64), End()});
  EXPECT_EQ(ResultBits(demote.Call(0, {Value::F64Bits(0xfff0000000000abcull)})), 0x7fc00000u);
}

TEST(Execute, MinMaxAndNearestFollowTheSpec) {
  const FuncType ff_to_f{{VT::F64, VT::F64}, {VT::F64}};
  Harness min = Single(ff_to_f, {}, {Get(0), Get(1), I(Op::F64Min), End()});
  EXPECT_EQ(ResultBits(min.Call(0, {Value::F64(0.0), Value::F64(-0.0)})), 0x8000000000000000ull);
  Harness max = Single(ff_to_f, {}, {Get(0), Get(1), I(Op::F64Max), End()});
  EXPECT_EQ(ResultBits(max.Call(0, {Value::F64(-0.0), Value::F64(0.0)})), 0u);
  EXPECT_EQ(ResultBits(max.Call(0, {Value::F64Bits(0x7ff0000000000001ull), Value::F64(1.0)})),
            0x7ff8000000000000ull);
  Harness nearest = Single(FuncType{{VT::F64}, {VT::F64}}, {}, {Get(0), I(Op::F64Nearest), End()});
  EXPECT_EQ(nearest.Call(0, {Value::F64(2.5)}).results[0].f64(), 2.0);
  EXPECT_EQ(nearest.Call(0, {Value::F64(3.5)}).results[0].f64(), 4.0);
  EXPECT_EQ(ResultBits(nearest.Call(0, {Value::F64(-0.5)})), 0x8000000000000000ull);
}

TEST(Execute, FloatToIntConversions) {
  Harness t = Single(FuncType{{VT::F32}, {VT::I32}}, {}, {Get(0), I(Op::I32TruncF32S), End()});
  EXPECT_EQ(ResultI32(t.Call(0, {Value::F32(-2147483648.0f)})), 0x80000000u);
  ExpectTrap(t.Call(0, {Value::F32(2147483648.0f)}), TrapKind::kIntegerOverflow);
  ExpectTrap(t.Call(0, {Value::F32Bits(0x7fc00000)}), TrapKind::kInvalidConversion);
  Harness u = Single(FuncType{{VT::F64}, {VT::I32}}, {}, {Get(0), I(Op::I32TruncF64U), End()});
  EXPECT_EQ(ResultI32(u.Call(0, {Value::F64(-0.9)})), 0u);
  ExpectTrap(u.Call(0, {Value::F64(-1.0)}), TrapKind::kIntegerOverflow);
  EXPECT_EQ(ResultI32(u.Call(0, {Value::F64(4294967295.9)})), 0xffffffffu);
  Harness sat = Single(FuncType{{VT::F64}, {VT::I64}}, {}, {Get(0), I(Op::I64TruncSatF64S), End()});
  EXPECT_EQ(ResultBits(sat.Call(0, {Value::F64(1e300)})), uint64_t(INT64_MAX));
  EXPECT_EQ(ResultBits(sat.Call(0, {Value::F64(-1e300)})), uint64_t(INT64_MIN));
  EXPECT_EQ(ResultBits(sat.Call(0, {Value::F64Bits(0x7ff8000000000000ull)})), 0u);
}

TEST(Execute, IfWithParamsGivesTheElseArmTheOriginalParams) {
  ModuleBuilder b;
  uint32_t sig = b.AddType(FuncType{{VT::I32, VT::I32}, {VT::I32}});
  // (x, 100) if (then: subtract; the then arm overwrites the param slots)
  //          (else: add) end
  b.AddFunc(kI32ToI32, {},
            {Get(0), I32(100), Get(0), I32(10), I(Op::I32LtS), BlockOfType(Op::If, sig), I(Op::I32Sub),
             I32(1000), I(Op::I32Mul), I(Op::Else), I(Op::I32Add), End(), End()});
  Harness h(b.Build());
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(3)})), uint32_t((3 - 100) * 1000));
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(50)})), 150u);
}

TEST(Execute, BrTableMovesValuesToEachTarget) {
  // block (result i32) block (result i32) block (result i32)
  //   i32.const 10 (local.get 0) br_table 0 1 2 (default 0)
  // end i32.const 1 add end i32.const 2 add end
  std::vector<Instr> body = {Block(Op::Block, VT::I32), Block(Op::Block, VT::I32), Block(Op::Block, VT::I32),
                             I32(10), Get(0), I(Op::BrTable, 0, 4),
                             End(), I32(1), I(Op::I32Add),
                             End(), I32(2), I(Op::I32Add),
                             End(), End()};
  ModuleBuilder b;
  b.AddFunc(kI32ToI32, {}, body, {0, 1, 2, 0});
  Harness h(b.Build());
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(0)})), 13u);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(1)})), 12u);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(2)})), 10u);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(7)})), 13u);
}

TEST(Execute, MultiValueReturnAndCall) {
  ModuleBuilder b;
  const FuncType swap{{VT::I32, VT::I32}, {VT::I32, VT::I32}};
  uint32_t f = b.AddFunc(swap, {}, {Get(1), Get(0), End()});
  b.AddFunc(kI32I32ToI32, {}, {Get(0), Get(1), I(Op::Call, f), I(Op::I32Sub), End()});
  Harness h(b.Build());
  Outcome o = h.Call(f, {Value::I32(1), Value::I32(2)});
  ASSERT_EQ(o.results.size(), 2u);
  EXPECT_EQ(o.results[0].i32(), 2u);
  EXPECT_EQ(o.results[1].i32(), 1u);
  EXPECT_EQ(ResultI32(h.Call(1, {Value::I32(10), Value::I32(3)})), uint32_t(3 - 10));
}

TEST(Execute, FusedAndPairedCodeComputesTheSameAsTheSpec) {
  // sum of bytes mem[p .. p+n) with sign-extension by shifts, a countdown
  // loop whose branch is fused with the decrement, paired loads and adds.
  std::vector<Instr> body = {
      Block(Op::Block), Get(1), I(Op::I32Eqz), I(Op::BrIf, 0),
      Block(Op::Loop),
      Get(2), Get(0), Mem(Op::I32Load8U), I32(24), I(Op::I32Shl), I32(24), I(Op::I32ShrS), I(Op::I32Add), Set(2),
      Get(0), I32(1), I(Op::I32Add), Set(0),
      Get(1), I32(-1), I(Op::I32Add), Tee(1), I(Op::BrIf, 0),
      End(), End(), Get(2), End()};
  ModuleBuilder b;
  b.AddMemory(1);
  b.AddFunc(FuncType{{VT::I32, VT::I32}, {VT::I32}}, {VT::I32}, body);
  // Stores bytes 0x80, 0x7f, 0x01 at 100.
  b.AddFunc(kVoid, {}, {I32(100), I32(0x80), Mem(Op::I32Store8), I32(101), I32(0x7f), Mem(Op::I32Store8),
                        I32(102), I32(1), Mem(Op::I32Store8), End()});
  Harness h(b.Build());
  ASSERT_EQ(h.Call(1).stop, StopReason::kReturned);
  h.store.set_fuel(1000);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(100), Value::I32(3)})), uint32_t(-128 + 127 + 1));
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(100), Value::I32(0)})), 0u);
  ExpectTrap(h.Call(0, {Value::I32(65535), Value::I32(2)}), TrapKind::kMemoryOutOfBounds);
}

TEST(Execute, ConstantAddressesAndZeroOperands) {
  ModuleBuilder b;
  b.AddMemory(1);
  // mem[1024 + 8] = x; return select(mem[1032], 0, x > 5)
  b.AddFunc(kI32ToI32, {},
            {I32(1024), Get(0), Mem(Op::I32Store, 8), I32(1032), Mem(Op::I32Load), I32(0), Get(0), I32(5),
             I(Op::I32GtS), I(Op::Select), End()});
  // A constant address past the end traps rather than wrapping.
  b.AddFunc(kToI32, {}, {I32(-1), Mem(Op::I32Load, 8), End()});
  Harness h(b.Build());
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(9)})), 9u);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(2)})), 0u);
  ExpectTrap(h.Call(1), TrapKind::kMemoryOutOfBounds);
}

TEST(Execute, GlobalsReadAndWrite) {
  ModuleBuilder b;
  uint32_t g = b.AddGlobal(VT::I32, 5);
  b.AddFunc(kI32ToI32, {}, {I(Op::GlobalGet, g), Get(0), I(Op::I32Add), I(Op::GlobalSet, g), I(Op::GlobalGet, g), End()});
  Harness h(b.Build());
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(1)})), 6u);
  EXPECT_EQ(ResultI32(h.Call(0, {Value::I32(1)})), 7u);
}

}  // namespace
}  // namespace ampoule::wasm
