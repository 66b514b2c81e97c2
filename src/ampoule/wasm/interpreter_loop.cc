// The interpreter's hot loop: one function, direct-threaded dispatch.
//
// Scheme (docs/interpreter.md has the full design):
//
//  * Code is an array of 32-bit units. An instruction is two units holding
//    the address of its handler label (&&H_Name), then its operand units.
//    Dispatch is `goto *Handler(pc)`: one indirect jump per handler, no
//    table load, no bounds check. NEXT(n) moves past an instruction of n-1
//    operands (n + 1 units).
//  * Operands: U(i) is operand unit i (1-based). SL(i) is the slot it
//    names, fp[U(i)]: a local, the zero slot, a scratch slot or an
//    operand-stack slot of the current frame; R32/R64/RF32/RF64 read it as a
//    type. K32(i) is the unit as an immediate, KS64(i) sign-extended.
//    Handlers read all operands before writing their destination, so a
//    destination may equal a source.
//  * Paired handlers (A_B) run A, then B with B's operands after A's; the
//    STEP_ macros are the single instructions written against an operand
//    offset.
//  * Slots are 64 bits. i32 and f32 values are kept zero-extended; floats
//    are kept as their bits. References are FunctionInstance pointers or
//    embedder numbers, 0 for null.
//  * Pinned registers: pc, fp, fuel (a signed local copy of the store's
//    fuel, written back on every exit and around host calls), mem and
//    mem_size (memory 0, reloaded after every call and memory.grow). Also
//    live: view (the current instance's resolved pointers) and frame_top.
//  * Fuel is charged per straight-line run of input instructions (a run
//    ends only at a control transfer; labels do not end it): a branch
//    charges what remains of the run it enters (ft / ff), a call the
//    callee's first run. CHARGE stops the run before it enters code whose
//    cost would take the fuel below zero.
//  * Calls never recurse on the C stack: a call saves (ret_pc, fp, view)
//    in the next Frame record, the callee's frame starts at the caller's
//    first argument slot, and a return restores the record. Results are
//    left in the callee's fp[0..n), which are the caller's argument slots.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "ampoule/wasm/fuel.h"
#include "ampoule/wasm/interpreter_internal.h"
#include "ampoule/wasm/interpreter_numeric.h"

static_assert(std::endian::native == std::endian::little,
              "memory accesses assume a little-endian host");

namespace ampoule::wasm {
namespace {
#ifdef AMPOULE_EXEC_PROFILE
}  // namespace
void ProfileOp(const int32_t* pc);
namespace {
#endif

// The handler address stored in an instruction's first two units.
inline const void* Handler(const int32_t* pc) {
  const void* h;
  std::memcpy(&h, pc, sizeof h);
  return h;
}

// noclone: the label addresses handed out in table mode must be those of
// the very body that runs.
#if defined(__clang__)
#define AMP_LOOP_FUNCTION __attribute__((noinline))
#else
// no-tree-loop-distribute-patterns: the locals-zeroing loop stays a loop
// instead of becoming a call to memset.
#define AMP_LOOP_FUNCTION __attribute__((noinline, noclone, optimize("no-tree-loop-distribute-patterns")))
#endif
AMP_LOOP_FUNCTION RunResult Interpret(ExecContext* ctx, const InstanceView* view,
                                                       const int32_t* pc0, uint64_t* fp0,
                                                       Frame* entry, const void* const** labels) {
  static const void* const kLabels[] = {
#define AMP_X(name, n) &&H_##name,
      AMP_INTERNAL_OPS(AMP_X)
#undef AMP_X
  };
  if (labels) {
    *labels = kLabels;
    return {};
  }

#if defined(__x86_64__)
#define AMP_REG(name, type, x86, arm) register type name asm(x86)
#elif defined(__aarch64__)
#define AMP_REG(name, type, x86, arm) register type name asm(arm)
#else
#define AMP_REG(name, type, x86, arm) type name
#endif

#ifdef AMPOULE_EXEC_PROFILE
#define DISPATCH() do { ProfileOp(pc); goto *Handler(pc); } while (0)
#else
#define DISPATCH() goto *Handler(pc)
#endif
// NEXT(n): on to the next instruction, past this one's n units (the two
// handler units included).
#define NEXT(n) \
  do {          \
    pc += (n) + 1;  \
    DISPATCH(); \
  } while (0)
#define U(i) pc[(i) + 1]
#define SL(i) fp[uint32_t(U(i))]
#define R32(i) uint32_t(SL(i))
#define R64(i) uint64_t(SL(i))
#define RF32(i) std::bit_cast<float>(R32(i))
#define RF64(i) std::bit_cast<double>(R64(i))
#define K32(i) uint32_t(U(i))
#define KS64(i) uint64_t(int64_t(U(i)))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TRAP(kind)   \
  do {               \
    trap = (kind);   \
    goto do_trap;    \
  } while (0)
#define CHARGE(units)                    \
  do {                                   \
    int64_t c_ = int64_t(uint32_t(units)); \
    fuel -= c_;                          \
    if (UNLIKELY(fuel < 0)) {            \
      fuel += c_;                        \
      goto out_of_fuel;                  \
    }                                    \
  } while (0)
#define FUEL_IN()                                                        \
  do {                                                                   \
    uint64_t f_ = ctx->fuel();                                           \
    fuel = f_ > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(f_);           \
    fuel_mark = fuel;                                                    \
  } while (0)
#define FUEL_OUT()                                  \
  do {                                              \
    ctx->fuel() -= uint64_t(fuel_mark - fuel);      \
    fuel_mark = fuel;                               \
  } while (0)
#define RELOAD_MEMORY()                      \
  do {                                       \
    mem = view->memory->data.data();         \
    mem_size = view->memory->data.size();    \
  } while (0)

  // The five hottest values are pinned to callee-saved registers: left to
  // itself the register allocator spills them in a function this large.
  AMP_REG(pc, const int32_t*, "rbx", "x19") = pc0;
  AMP_REG(fp, uint64_t*, "r12", "x20") = fp0;
  AMP_REG(fuel, int64_t, "r15", "x21");
  AMP_REG(mem, uint8_t*, "r13", "x22");
  AMP_REG(mem_size, uint64_t, "r14", "x23");
  RunResult result;
  TrapKind trap = TrapKind::kNone;
  int64_t fuel_mark;
  FUEL_IN();
  RELOAD_MEMORY();
  Frame* frame_top = entry;
  Frame* const frames_end = ctx->frames_end;
  uint64_t* const stack_end = ctx->stack_end;
  FunctionInstance* callee;
  uint64_t* callee_fp;
  const int32_t* ret_pc;
  bool with_args;
  bool out_of_fuel = false;

  DISPATCH();

  // ---- Control -------------------------------------------------------------
H_Unreachable:
  TRAP(TrapKind::kUnreachable);
H_Br:
  CHARGE(U(2));
  pc += U(1);
  DISPATCH();

#define BRANCH_IF(cond, t, n) \
  if (cond) {                 \
    CHARGE(U(t + 1));         \
    pc += U(t);               \
  } else {                    \
    CHARGE(U(t + 2));         \
    pc += (n) + 1;            \
  }                           \
  DISPATCH();

H_BrNz:
  BRANCH_IF(R32(1) != 0, 2, 5)
H_BrZ:
  BRANCH_IF(R32(1) == 0, 2, 5)
H_BrNz64:
  BRANCH_IF(R64(1) != 0, 2, 5)
H_BrZ64:
  BRANCH_IF(R64(1) == 0, 2, 5)
#define LOAD_BRANCH(Name, T, test)                                       \
  H_##Name : {                                                           \
    uint64_t ea = uint64_t(R32(2)) + K32(3);                             \
    if (UNLIKELY(ea + sizeof(T) > mem_size)) TRAP(TrapKind::kMemoryOutOfBounds); \
    T v;                                                                 \
    std::memcpy(&v, mem + ea, sizeof(T));                                \
    SL(1) = v;                                                           \
    BRANCH_IF(v test 0, 4, 7)                                            \
  }
  LOAD_BRANCH(Load32BrNz, uint32_t, !=)
  LOAD_BRANCH(Load32BrZ, uint32_t, ==)
  LOAD_BRANCH(Load8UBrNz, uint8_t, !=)
  LOAD_BRANCH(Load8UBrZ, uint8_t, ==)
H_Add32IBrNz: {
  uint32_t v = R32(2) + K32(3);
  SL(1) = v;
  BRANCH_IF(v != 0, 4, 7)
}
H_Add32IBrZ: {
  uint32_t v = R32(2) + K32(3);
  SL(1) = v;
  BRANCH_IF(v == 0, 4, 7)
}
H_Sub32BrNz: {
  uint32_t v = R32(2) - R32(3);
  SL(1) = v;
  BRANCH_IF(v != 0, 4, 7)
}
H_Sub32BrZ: {
  uint32_t v = R32(2) - R32(3);
  SL(1) = v;
  BRANCH_IF(v == 0, 4, 7)
}
H_And32IBrNz: {
  uint32_t v = R32(2) & K32(3);
  SL(1) = v;
  BRANCH_IF(v != 0, 4, 7)
}
H_And32IBrZ: {
  uint32_t v = R32(2) & K32(3);
  SL(1) = v;
  BRANCH_IF(v == 0, 4, 7)
}
H_BrTestNz32I:
  BRANCH_IF((R32(1) & K32(2)) != 0, 3, 6)
H_BrTestZ32I:
  BRANCH_IF((R32(1) & K32(2)) == 0, 3, 6)

#define CMP_FAMILY(X, S)                                                  \
  X(Eq, a == b) X(Ne, a != b) X(LtS, S(a) < S(b)) X(LtU, a < b)           \
  X(GtS, S(a) > S(b)) X(GtU, a > b) X(LeS, S(a) <= S(b)) X(LeU, a <= b)    \
  X(GeS, S(a) >= S(b)) X(GeU, a >= b)
#define S32(x) int32_t(x)
#define S64(x) int64_t(x)
#define BR_CMP32(Name, expr)            \
  H_Br##Name##32 : {                    \
    uint32_t a = R32(1), b = R32(2);    \
    BRANCH_IF(expr, 3, 6)               \
  }                                     \
  H_Br##Name##32I : {                   \
    uint32_t a = R32(1), b = K32(2);    \
    BRANCH_IF(expr, 3, 6)               \
  }
#define BR_CMP64(Name, expr)            \
  H_Br##Name##64 : {                    \
    uint64_t a = R64(1), b = R64(2);    \
    BRANCH_IF(expr, 3, 6)               \
  }
  CMP_FAMILY(BR_CMP32, S32)
  CMP_FAMILY(BR_CMP64, S64)

H_BrTable: {
  uint32_t i = std::min(R32(1), K32(2));
  const int32_t* e = pc + 4 + 2 * size_t(i);
  CHARGE(e[1]);
  pc += e[0];
  DISPATCH();
}
H_Load8UBrTable: {
  uint64_t ea = uint64_t(R32(2)) + K32(3);
  if (UNLIKELY(ea + 1 > mem_size)) TRAP(TrapKind::kMemoryOutOfBounds);
  uint32_t v = mem[ea];
  SL(1) = v;
  const int32_t* e = pc + 6 + 2 * size_t(std::min(v, K32(4)));
  CHARGE(e[1]);
  pc += e[0];
  DISPATCH();
}

H_Return1:
  fp[0] = SL(1);
  goto do_return;
H_ReturnN: {
  uint32_t n = K32(1);
  const uint64_t* src = fp + K32(2);
  for (uint32_t i = 0; i < n; ++i) fp[i] = src[i];
  goto do_return;
}
H_Return:
do_return:
  if (frame_top == entry) goto finished;
  --frame_top;
  pc = frame_top->ret_pc;
  fp = frame_top->fp;
  view = frame_top->view;
  RELOAD_MEMORY();
  DISPATCH();

H_Call:
  callee = view->funcs[K32(1)];
  callee_fp = fp + K32(2);
  ret_pc = pc + 4;
  goto do_call;
H_CallArgs: {
  callee = view->funcs[K32(1)];
  callee_fp = fp + K32(2);
  uint32_t n = K32(3);
  for (uint32_t i = 0; i < n; ++i) callee_fp[i] = SL(4 + i);
  ret_pc = pc + 5 + n;
  goto do_call;
}
H_CallIndirectArgs:
  with_args = true;
  goto call_indirect;
H_CallIndirect:
  with_args = false;
call_indirect: {
  const TableInstance* t = view->tables[K32(2)];
  uint32_t i = R32(4);
  if (UNLIKELY(i >= t->elements.size())) TRAP(TrapKind::kUndefinedElement);
  Ref r = t->elements[i];
  if (UNLIKELY(r == kNullRef)) TRAP(TrapKind::kUninitializedElement);
  callee = reinterpret_cast<FunctionInstance*>(r);
  if (UNLIKELY(callee->type_id != view->type_ids[K32(1)])) TRAP(TrapKind::kIndirectCallTypeMismatch);
  callee_fp = fp + K32(3);
  ret_pc = pc + 6;
  if (with_args) {
    uint32_t n = K32(5);
    for (uint32_t j = 0; j < n; ++j) callee_fp[j] = SL(6 + j);
    ret_pc = pc + 7 + n;
  }
  goto do_call;
}
do_call: {
  const CompiledFunction* cf = callee->code;
  if (UNLIKELY(cf == nullptr)) goto host_call;
  if (UNLIKELY(frame_top == frames_end)) TRAP(TrapKind::kCallStackExhausted);
  if (UNLIKELY(size_t(stack_end - callee_fp) < cf->frame_slots)) TRAP(TrapKind::kValueStackExhausted);
  CHARGE(cf->entry_fuel);
  frame_top->ret_pc = ret_pc;
  frame_top->fp = fp;
  frame_top->view = view;
  ++frame_top;
  // A plain loop: most functions have a handful of locals, too few for a
  // call to memset to pay off.
  for (uint64_t *p = callee_fp + cf->num_params, *e = p + cf->num_locals; p < e; ++p) *p = 0;
  fp = callee_fp;
  pc = cf->code.data();
  if (UNLIKELY(callee->instance != view->instance)) {
    view = ctx->View(callee->instance);
    RELOAD_MEMORY();
  }
  DISPATCH();
}
host_call: {
  if (callee->instance != nullptr) {
    // Not a host function: a lazily compiled one, called for the first time
    // in this store. Its translation does not depend on the call.
    std::string error = CompileOnFirstCall(callee);
    if (UNLIKELY(!error.empty())) {
      result.message = std::move(error);
      TRAP(TrapKind::kHost);
    }
    goto do_call;
  }
  FUEL_OUT();
  ctx->frame_top = frame_top;
  const FuncType& ft = *callee->type;
  ctx->sp = callee_fp + std::max(ft.params.size(), ft.results.size());
  {
    // Scoped so that the dispatch below leaves no destructor behind (Clang
    // refuses an indirect goto out of such a scope).
    RunResult r = CallHost(*ctx, callee, callee_fp, view->instance, view->memory);
    FUEL_IN();
    RELOAD_MEMORY();
    if (UNLIKELY(r.stop != StopReason::kReturned)) {
      result = std::move(r);
      goto done;
    }
  }
  pc = ret_pc;
  DISPATCH();
}

  // ---- Moves and variables -------------------------------------------------
H_Copy:
  SL(1) = SL(2);
  NEXT(3);
H_Copy2:
  SL(1) = SL(2);
  SL(3) = SL(4);
  NEXT(5);
H_Const32:
  SL(1) = K32(2);
  NEXT(3);
H_Const64:
  SL(1) = uint64_t(K32(2)) | uint64_t(K32(3)) << 32;
  NEXT(4);
H_Select: {
  uint64_t a = SL(2), b = SL(3);
  SL(1) = R32(4) ? a : b;
  NEXT(5);
}
H_SelectK1: {
  uint64_t b = SL(3);
  SL(1) = R32(4) ? uint64_t(K32(2)) : b;
  NEXT(5);
}
H_SelectK2: {
  uint64_t a = SL(2);
  SL(1) = R32(4) ? a : uint64_t(K32(3));
  NEXT(5);
}
H_GlobalGet32:
  SL(1) = uint32_t(view->globals[K32(2)]->bits);
  NEXT(3);
H_GlobalGet64:
  SL(1) = view->globals[K32(2)]->bits;
  NEXT(3);
H_GlobalSet:
  view->globals[K32(1)]->bits = SL(2);
  NEXT(3);

  // ---- References and tables -----------------------------------------------
H_RefFunc:
  SL(1) = reinterpret_cast<uint64_t>(view->funcs[K32(2)]);
  NEXT(3);
H_TableGet: {
  const TableInstance* t = view->tables[K32(2)];
  uint32_t i = R32(3);
  if (UNLIKELY(i >= t->elements.size())) TRAP(TrapKind::kTableOutOfBounds);
  SL(1) = t->elements[i];
  NEXT(4);
}
H_TableSet: {
  TableInstance* t = view->tables[K32(1)];
  uint32_t i = R32(2);
  if (UNLIKELY(i >= t->elements.size())) TRAP(TrapKind::kTableOutOfBounds);
  t->elements[i] = SL(3);
  NEXT(4);
}
H_TableSize:
  SL(1) = view->tables[K32(2)]->size();
  NEXT(3);
  // Bulk operations: the slow path charges the per-length fuel on a copy
  // (the fuel register must not have its address taken).
#define BULK(call, n)                                     \
  {                                                       \
    int64_t f = fuel;                                     \
    trap = call;                                          \
    fuel = f;                                             \
    if (UNLIKELY(out_of_fuel)) goto out_of_fuel;          \
    if (UNLIKELY(trap != TrapKind::kNone)) goto do_trap;  \
    NEXT(n);                                              \
  }
H_TableGrow: {
  int64_t f = fuel;
  uint32_t r = TableGrow(*view->tables[K32(2)], SL(3), R32(4), f, &out_of_fuel);
  fuel = f;
  if (UNLIKELY(out_of_fuel)) goto out_of_fuel;
  SL(1) = r;
  NEXT(5);
}
H_TableFill:
  BULK(TableFill(*view->tables[K32(1)], R32(2), SL(3), R32(4), f, &out_of_fuel), 5)
H_TableCopy:
  BULK(TableCopy(*view->tables[K32(1)], *view->tables[K32(2)], R32(3), R32(4), R32(5), f, &out_of_fuel), 6)
H_TableInit:
  BULK(TableInit(*view, K32(1), K32(2), R32(3), R32(4), R32(5), f, &out_of_fuel), 6)
H_ElemDrop:
  ElemDrop(*view, K32(1));
  NEXT(2);

  // ---- Memory --------------------------------------------------------------
H_MemorySize:
  SL(1) = uint32_t(mem_size / kPageSize);
  NEXT(2);
H_MemoryGrow: {
  uint32_t r = view->memory->Grow(R32(2));
  RELOAD_MEMORY();
  SL(1) = r;
  NEXT(3);
}
H_MemoryFill:
  BULK(MemoryFill(*view->memory, R32(1), uint8_t(R32(2)), R32(3), f, &out_of_fuel), 4)
H_MemoryCopy:
  BULK(MemoryCopy(*view->memory, R32(1), R32(2), R32(3), f, &out_of_fuel), 4)
H_MemoryInit:
  BULK(MemoryInit(*view, K32(1), R32(2), R32(3), R32(4), f, &out_of_fuel), 5)
H_DataDrop:
  DataDrop(*view, K32(1));
  NEXT(2);

  // Effective addresses are 33-bit sums computed in 64 bits: never wrap.
  // The Add forms first add two i32s (wrapping), as i32.add would.
#define LOAD_AT(Name, T, conv, addr, n)                                  \
  H_##Name : {                                                           \
    uint64_t ea = uint64_t(addr) + K32(n);                               \
    if (UNLIKELY(ea + sizeof(T) > mem_size)) TRAP(TrapKind::kMemoryOutOfBounds); \
    T v;                                                                 \
    std::memcpy(&v, mem + ea, sizeof(T));                                \
    SL(1) = conv;                                                        \
    NEXT(n + 1);                                                         \
  }
#define LOAD(Name, T, conv)                                     \
  LOAD_AT(Name, T, conv, R32(2), 3)                             \
  LOAD_AT(Name##Add, T, conv, uint32_t(R32(2) + R32(3)), 4)     \
  LOAD_AT(Name##AddI, T, conv, uint32_t(R32(2) + K32(3)), 4)
  LOAD(Load32, uint32_t, v)
  LOAD(Load64, uint64_t, v)
  LOAD(Load8S32, int8_t, uint32_t(int32_t(v)))
  LOAD(Load8U, uint8_t, v)
  LOAD(Load16S32, int16_t, uint32_t(int32_t(v)))
  LOAD(Load16U, uint16_t, v)
  LOAD(Load8S64, int8_t, uint64_t(int64_t(v)))
  LOAD(Load16S64, int16_t, uint64_t(int64_t(v)))
  LOAD(Load32S64, int32_t, uint64_t(int64_t(v)))

#define STORE_OF(Name, T, value)                                         \
  H_##Name : {                                                           \
    uint64_t ea = uint64_t(R32(1)) + K32(3);                             \
    if (UNLIKELY(ea + sizeof(T) > mem_size)) TRAP(TrapKind::kMemoryOutOfBounds); \
    T v = T(value);                                                      \
    std::memcpy(mem + ea, &v, sizeof(T));                                \
    NEXT(4);                                                             \
  }
#define STORE(Name, T) STORE_OF(Name, T, SL(2)) STORE_OF(Name##I, T, KS64(2))
  STORE(Store32, uint32_t)
  STORE(Store64, uint64_t)
  STORE(Store8, uint8_t)
  STORE(Store16, uint16_t)

  // ---- Integer arithmetic --------------------------------------------------
#define INT_BIN(X, S, SH)                                                   \
  X(Add, a + b) X(Sub, a - b) X(Mul, a * b) X(And, a & b) X(Or, a | b)        \
  X(Xor, a ^ b) X(Shl, a << (b & SH)) X(ShrS, S(a) >> (b & SH))             \
  X(ShrU, a >> (b & SH)) X(Rotl, std::rotl(a, int(b & SH)))                \
  X(Rotr, std::rotr(a, int(b & SH)))
#define BIN32(Name, expr)                 \
  H_##Name##32 : {                        \
    uint32_t a = R32(2), b = R32(3);      \
    SL(1) = uint32_t(expr);               \
    NEXT(4);                              \
  }
#define BIN32I(Name, expr)                \
  H_##Name##32I : {                       \
    uint32_t a = R32(2), b = K32(3);      \
    SL(1) = uint32_t(expr);               \
    NEXT(4);                              \
  }
#define BIN64(Name, expr)                 \
  H_##Name##64 : {                        \
    uint64_t a = R64(2), b = R64(3);      \
    SL(1) = uint64_t(expr);               \
    NEXT(4);                              \
  }
#define BIN64I(Name, expr)                \
  H_##Name##64I : {                       \
    uint64_t a = R64(2), b = KS64(3);     \
    SL(1) = uint64_t(expr);               \
    NEXT(4);                              \
  }
  INT_BIN(BIN32, S32, 31)
  INT_BIN(BIN64, S64, 63)
  CMP_FAMILY(BIN32, S32)
  CMP_FAMILY(BIN32I, S32)
  CMP_FAMILY(BIN64, S64)
  CMP_FAMILY(BIN64I, S64)
#define INT_IMM(X, S, SH)                                                   \
  X(Add, a + b) X(Mul, a * b) X(And, a & b) X(Or, a | b) X(Xor, a ^ b)        \
  X(Shl, a << (b & SH)) X(ShrS, S(a) >> (b & SH)) X(ShrU, a >> (b & SH))
  INT_IMM(BIN32I, S32, 31)
  INT_IMM(BIN64I, S64, 63)

H_DivS32: {
  int32_t a = int32_t(R32(2)), b = int32_t(R32(3));
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  if (UNLIKELY(a == INT32_MIN && b == -1)) TRAP(TrapKind::kIntegerOverflow);
  SL(1) = uint32_t(a / b);
  NEXT(4);
}
H_DivU32: {
  uint32_t a = R32(2), b = R32(3);
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  SL(1) = a / b;
  NEXT(4);
}
H_RemS32: {
  int32_t a = int32_t(R32(2)), b = int32_t(R32(3));
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  SL(1) = uint32_t(b == -1 ? 0 : a % b);
  NEXT(4);
}
H_RemU32: {
  uint32_t a = R32(2), b = R32(3);
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  SL(1) = a % b;
  NEXT(4);
}
H_DivS64: {
  int64_t a = int64_t(R64(2)), b = int64_t(R64(3));
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  if (UNLIKELY(a == INT64_MIN && b == -1)) TRAP(TrapKind::kIntegerOverflow);
  SL(1) = uint64_t(a / b);
  NEXT(4);
}
H_DivU64: {
  uint64_t a = R64(2), b = R64(3);
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  SL(1) = a / b;
  NEXT(4);
}
H_RemS64: {
  int64_t a = int64_t(R64(2)), b = int64_t(R64(3));
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  SL(1) = uint64_t(b == -1 ? 0 : a % b);
  NEXT(4);
}
H_RemU64: {
  uint64_t a = R64(2), b = R64(3);
  if (UNLIKELY(b == 0)) TRAP(TrapKind::kIntegerDivideByZero);
  SL(1) = a % b;
  NEXT(4);
}

#define UNARY(Name, T, R, expr) \
  H_##Name : {                  \
    T a = R(2);                 \
    SL(1) = expr;               \
    NEXT(3);                    \
  }
  UNARY(Eqz32, uint32_t, R32, uint32_t(a == 0))
  UNARY(Clz32, uint32_t, R32, uint32_t(std::countl_zero(a)))
  UNARY(Ctz32, uint32_t, R32, uint32_t(std::countr_zero(a)))
  UNARY(Popcnt32, uint32_t, R32, uint32_t(std::popcount(a)))
  UNARY(Extend8S32, uint32_t, R32, uint32_t(int32_t(int8_t(a))))
  UNARY(Extend16S32, uint32_t, R32, uint32_t(int32_t(int16_t(a))))
  UNARY(Eqz64, uint64_t, R64, uint32_t(a == 0))
  UNARY(Clz64, uint64_t, R64, uint64_t(std::countl_zero(a)))
  UNARY(Ctz64, uint64_t, R64, uint64_t(std::countr_zero(a)))
  UNARY(Popcnt64, uint64_t, R64, uint64_t(std::popcount(a)))
  UNARY(Extend8S64, uint64_t, R64, uint64_t(int64_t(int8_t(a))))
  UNARY(Extend16S64, uint64_t, R64, uint64_t(int64_t(int16_t(a))))
  UNARY(Extend32S64, uint64_t, R64, uint64_t(int64_t(int32_t(a))))
  UNARY(Wrap64, uint64_t, R64, uint32_t(a))

  // ---- Floating point ------------------------------------------------------
#define FLOAT_OPS(X, T, R, N)                                                  \
  X(Ceil##N, T, R, numeric::Canon(std::ceil(a)))                               \
  X(Floor##N, T, R, numeric::Canon(std::floor(a)))                             \
  X(Trunc##N, T, R, numeric::Canon(std::trunc(a)))                             \
  X(Nearest##N, T, R, numeric::Canon(numeric::Nearest(a)))                     \
  X(Sqrt##N, T, R, numeric::Canon(std::sqrt(a)))
#define FBIN(Name, T, R, expr) \
  H_##Name : {                 \
    T a = R(2), b = R(3);      \
    SL(1) = expr;              \
    NEXT(4);                   \
  }
#define FLOAT_BIN(X, T, R, N)                                                  \
  X(FAdd##N, T, R, numeric::Canon(T(a + b)))                                   \
  X(FSub##N, T, R, numeric::Canon(T(a - b)))                                   \
  X(FMul##N, T, R, numeric::Canon(T(a * b)))                                   \
  X(FDiv##N, T, R, numeric::Canon(T(a / b)))                                   \
  X(Min##N, T, R, numeric::Min(a, b)) X(Max##N, T, R, numeric::Max(a, b))      \
  X(FEq##N, T, R, uint32_t(a == b)) X(FNe##N, T, R, uint32_t(a != b))          \
  X(FLt##N, T, R, uint32_t(a < b)) X(FGt##N, T, R, uint32_t(a > b))            \
  X(FLe##N, T, R, uint32_t(a <= b)) X(FGe##N, T, R, uint32_t(a >= b))
  FLOAT_OPS(UNARY, float, RF32, 32)
  FLOAT_OPS(UNARY, double, RF64, 64)
  FLOAT_BIN(FBIN, float, RF32, 32)
  FLOAT_BIN(FBIN, double, RF64, 64)
  FBIN(Copysign32, uint32_t, R32, (a & 0x7fffffffu) | (b & 0x80000000u))
  FBIN(Copysign64, uint64_t, R64, (a & ~(uint64_t(1) << 63)) | (b & (uint64_t(1) << 63)))
  UNARY(Abs64, uint64_t, R64, a & ~(uint64_t(1) << 63))
  UNARY(Neg64, uint64_t, R64, a ^ (uint64_t(1) << 63))

#define TRUNC(Name, Int, R, Out)                                  \
  H_##Name : {                                                    \
    Int r;                                                        \
    trap = numeric::Trunc<Int>(double(R(2)), &r);                 \
    if (UNLIKELY(trap != TrapKind::kNone)) goto do_trap;          \
    SL(1) = Out(r);                                               \
    NEXT(3);                                                      \
  }
  TRUNC(I32TruncF32S, int32_t, RF32, uint32_t)
  TRUNC(I32TruncF32U, uint32_t, RF32, uint32_t)
  TRUNC(I32TruncF64S, int32_t, RF64, uint32_t)
  TRUNC(I32TruncF64U, uint32_t, RF64, uint32_t)
  TRUNC(I64TruncF32S, int64_t, RF32, uint64_t)
  TRUNC(I64TruncF32U, uint64_t, RF32, uint64_t)
  TRUNC(I64TruncF64S, int64_t, RF64, uint64_t)
  TRUNC(I64TruncF64U, uint64_t, RF64, uint64_t)
  UNARY(I32TruncSatF32S, float, RF32, uint32_t(numeric::TruncSat<int32_t>(double(a))))
  UNARY(I32TruncSatF32U, float, RF32, uint32_t(numeric::TruncSat<uint32_t>(double(a))))
  UNARY(I32TruncSatF64S, double, RF64, uint32_t(numeric::TruncSat<int32_t>(a)))
  UNARY(I32TruncSatF64U, double, RF64, uint32_t(numeric::TruncSat<uint32_t>(a)))
  UNARY(I64TruncSatF32S, float, RF32, uint64_t(numeric::TruncSat<int64_t>(double(a))))
  UNARY(I64TruncSatF32U, float, RF32, uint64_t(numeric::TruncSat<uint64_t>(double(a))))
  UNARY(I64TruncSatF64S, double, RF64, uint64_t(numeric::TruncSat<int64_t>(a)))
  UNARY(I64TruncSatF64U, double, RF64, uint64_t(numeric::TruncSat<uint64_t>(a)))
  UNARY(F32ConvertI32S, uint32_t, R32, std::bit_cast<uint32_t>(float(int32_t(a))))
  UNARY(F32ConvertI32U, uint32_t, R32, std::bit_cast<uint32_t>(float(a)))
  UNARY(F32ConvertI64S, uint64_t, R64, std::bit_cast<uint32_t>(float(int64_t(a))))
  UNARY(F32ConvertI64U, uint64_t, R64, std::bit_cast<uint32_t>(float(a)))
  UNARY(F32DemoteF64, double, RF64, numeric::Canon(float(a)))
  UNARY(F64ConvertI32S, uint32_t, R32, std::bit_cast<uint64_t>(double(int32_t(a))))
  UNARY(F64ConvertI32U, uint32_t, R32, std::bit_cast<uint64_t>(double(a)))
  UNARY(F64ConvertI64S, uint64_t, R64, std::bit_cast<uint64_t>(double(int64_t(a))))
  UNARY(F64ConvertI64U, uint64_t, R64, std::bit_cast<uint64_t>(double(a)))
  UNARY(F64PromoteF32, float, RF32, numeric::Canon(double(a)))

  // ---- Pairs ---------------------------------------------------------------
  // STEP_X(o) is instruction X with its operands after unit o of the pair.
#define STEP_LOAD(o, T)                                                          \
  {                                                                              \
    uint64_t ea = uint64_t(R32((o) + 2)) + K32((o) + 3);                         \
    if (UNLIKELY(ea + sizeof(T) > mem_size)) TRAP(TrapKind::kMemoryOutOfBounds); \
    T v;                                                                         \
    std::memcpy(&v, mem + ea, sizeof(T));                                        \
    SL((o) + 1) = v;                                                             \
  }
#define STEP_Load32(o) STEP_LOAD(o, uint32_t)
#define STEP_Load8U(o) STEP_LOAD(o, uint8_t)
#define STEP_Load16U(o) STEP_LOAD(o, uint16_t)
#define STEP_Store32(o)                                                          \
  {                                                                              \
    uint64_t ea = uint64_t(R32((o) + 1)) + K32((o) + 3);                         \
    if (UNLIKELY(ea + 4 > mem_size)) TRAP(TrapKind::kMemoryOutOfBounds);         \
    uint32_t v = uint32_t(SL((o) + 2));                                          \
    std::memcpy(mem + ea, &v, 4);                                                \
  }
#define STEP_RR(o, expr)                     \
  {                                          \
    uint32_t a = R32((o) + 2), b = R32((o) + 3); \
    SL((o) + 1) = uint32_t(expr);            \
  }
#define STEP_RI(o, expr)                     \
  {                                          \
    uint32_t a = R32((o) + 2), b = K32((o) + 3); \
    SL((o) + 1) = uint32_t(expr);            \
  }
#define STEP_Add32(o) STEP_RR(o, a + b)
#define STEP_And32(o) STEP_RR(o, a & b)
#define STEP_Add32I(o) STEP_RI(o, a + b)
#define STEP_Mul32I(o) STEP_RI(o, a * b)
#define STEP_Shl32I(o) STEP_RI(o, a << (b & 31))
#define STEP_Add64I(o)                                       \
  {                                                          \
    uint64_t a = R64((o) + 2), b = KS64((o) + 3);            \
    SL((o) + 1) = a + b;                                     \
  }
#define STEP_Copy(o) SL((o) + 1) = SL((o) + 2);
#define STEP_GlobalSet(o) view->globals[K32((o) + 1)]->bits = SL((o) + 2);
#define STEP_GlobalGet32(o) SL((o) + 1) = uint32_t(view->globals[K32((o) + 2)]->bits);
#define STEP_Br(o)        \
  CHARGE(U((o) + 2));     \
  pc += U((o) + 1);       \
  DISPATCH();
#define N_Load32 3
#define N_Load8U 3
#define N_Add32 3
#define N_Add32I 3
#define N_Add64I 3
#define N_Mul32I 3
#define N_Shl32I 3
#define N_And32 3
#define N_Store32 3
#define N_Copy 2
#define N_GlobalGet32 2
#define PAIR_HANDLER(X, A, B, n) \
  H_##A##_##B : STEP_##A(0) STEP_##B(N_##A) NEXT((n) + 1);
  AMP_PAIRS(PAIR_HANDLER, _)

  // ---- Exits ---------------------------------------------------------------
do_trap:
  result.stop = StopReason::kTrap;
  result.trap = trap;
  goto done;
out_of_fuel:
  result.stop = StopReason::kOutOfFuel;
  goto done;
finished:
  result.stop = StopReason::kReturned;
done:
  FUEL_OUT();
  return result;

#undef DISPATCH
#undef NEXT
#undef SL
#undef U
#undef R32
#undef R64
#undef RF32
#undef RF64
#undef K32
#undef KS64
#undef UNLIKELY
#undef TRAP
#undef CHARGE
#undef FUEL_IN
#undef FUEL_OUT
#undef RELOAD_MEMORY
#undef BULK
#undef AMP_REG
}

}  // namespace

RunResult RunLoop(ExecContext& ctx, const InstanceView* view, const int32_t* pc, uint64_t* fp,
                  Frame* entry) {
  return Interpret(&ctx, view, pc, fp, entry, nullptr);
}

const void* const* InterpreterHandlers() {
  static const void* const* labels = [] {
    const void* const* out = nullptr;
    Interpret(nullptr, nullptr, nullptr, nullptr, nullptr, &out);
    return out;
  }();
  return labels;
}

}  // namespace ampoule::wasm
