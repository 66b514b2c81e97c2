// The interpreter's internal instruction set, one row per operation.
//
// Internal to the translator and the interpreter (see docs/interpreter.md).
// Each instruction is a run of 32-bit code units: the handler unit, then its
// operands. Operand letters in the comments:
//   d   destination slot (index into the frame, fp[d])
//   a b c v x   source slots
//   k   32-bit immediate (sign-extended for 64-bit operations)
//   lo hi  a 64-bit immediate split in two units
//   o   static memory offset (memarg), unsigned 32-bit
//   t   branch target, signed distance in units from the instruction's start
//   ft ff  fuel charged when the branch is taken / not taken
//
// X(Name, operand_units); operand_units is -1 for BrTable (variable length).
// Nothing here is persistent: the form is rebuilt from the module on every
// compile, so rows may be added or reordered freely.
#pragma once

#include <cstdint>

// clang-format off
#define AMP_CMP_OPS(X, P, S, N)                                         \
  X(P##Eq##S, N) X(P##Ne##S, N) X(P##LtS##S, N) X(P##LtU##S, N)        \
  X(P##GtS##S, N) X(P##GtU##S, N) X(P##LeS##S, N) X(P##LeU##S, N)      \
  X(P##GeS##S, N) X(P##GeU##S, N)

#define AMP_INT_BIN_OPS(X, S)                                           \
  X(Add##S, 3) X(Sub##S, 3) X(Mul##S, 3) X(DivS##S, 3) X(DivU##S, 3)    \
  X(RemS##S, 3) X(RemU##S, 3) X(And##S, 3) X(Or##S, 3) X(Xor##S, 3)     \
  X(Shl##S, 3) X(ShrS##S, 3) X(ShrU##S, 3) X(Rotl##S, 3) X(Rotr##S, 3)

#define AMP_INT_IMM_OPS(X, S)                                           \
  X(Add##S##I, 3) X(Mul##S##I, 3) X(And##S##I, 3) X(Or##S##I, 3)         \
  X(Xor##S##I, 3) X(Shl##S##I, 3) X(ShrS##S##I, 3) X(ShrU##S##I, 3)

#define AMP_FLOAT_OPS(X, S)                                             \
  X(Ceil##S, 2) X(Floor##S, 2) X(Trunc##S, 2) X(Nearest##S, 2)          \
  X(Sqrt##S, 2) X(FAdd##S, 3) X(FSub##S, 3) X(FMul##S, 3) X(FDiv##S, 3) \
  X(Min##S, 3) X(Max##S, 3) X(Copysign##S, 3) X(FEq##S, 3) X(FNe##S, 3) \
  X(FLt##S, 3) X(FGt##S, 3) X(FLe##S, 3) X(FGe##S, 3)

#define AMP_LOAD_OPS(X, S, N)                                           \
  X(Load32##S, N) X(Load64##S, N) X(Load8S32##S, N) X(Load8U##S, N)     \
  X(Load16S32##S, N) X(Load16U##S, N) X(Load8S64##S, N)                 \
  X(Load16S64##S, N) X(Load32S64##S, N)

// Pairs of adjacent instructions run by one handler (A_B does A, then B,
// with B's operands after A's), formed after translation from the pairs
// most frequent in compiled C. P(X, A, B, operand units of A and B).
#define AMP_PAIRS(P, X)                                                       \
  P(X, Load32, Load32, 6) P(X, Load32, Load8U, 6) P(X, Load32, Load16U, 6)      \
  P(X, Load8U, Load8U, 6) P(X, Load32, Mul32I, 6) P(X, Load32, Shl32I, 6)       \
  P(X, Load32, Add32I, 6) P(X, Load32, Add32, 6) P(X, Load32, Store32, 6)       \
  P(X, Load8U, Shl32I, 6) P(X, Load8U, Add32, 6) P(X, Add32I, Add32I, 6)        \
  P(X, Add32, Add32, 6) P(X, Add32, Add32I, 6) P(X, Add32I, Add32, 6)           \
  P(X, Add32I, Load32, 6) P(X, Add32I, Store32, 6) P(X, Mul32I, Add32, 6)       \
  P(X, Shl32I, Add32, 6) P(X, And32, Shl32I, 6) P(X, Store32, Add32I, 6)        \
  P(X, Add32I, GlobalSet, 5) P(X, GlobalGet32, Add32I, 5)                       \
  P(X, Copy, Add64I, 5) P(X, Add64I, Load8U, 6)                                 \
  /* A trailing Br: its target is relative to the pair's start. */             \
  P(X, Add32I, Br, 5) P(X, Copy, Br, 4)
#define AMP_PAIR_OP(X, A, B, n) X(A##_##B, n)

#define AMP_INTERNAL_OPS(X)                                                  \
  /* Control. */                                                             \
  X(Unreachable, 0)     /* trap */                                           \
  X(Br, 2)              /* t ft */                                           \
  /* Conditional branches, kept contiguous (BrNz .. And32IBrZ) and grouped */ \
  /* by where the target is: BrNz..BrZ64, BrTestNz32I..BrGeU64, the rest. */   \
  X(BrNz, 4)            /* a t ft ff: branch if i32 a != 0 */                \
  X(BrZ, 4)             /* a t ft ff: branch if i32 a == 0 */                \
  X(BrNz64, 4)          /* a t ft ff: branch if i64 a != 0 */                \
  X(BrZ64, 4)           /* a t ft ff: branch if i64 a == 0 */                \
  X(BrTestNz32I, 5)     /* a k t ft ff: branch if (a & k) != 0 */            \
  X(BrTestZ32I, 5)      /* a k t ft ff: branch if (a & k) == 0 */            \
  AMP_CMP_OPS(X, Br, 32, 5)   /* a b t ft ff: branch if a <op> b */          \
  AMP_CMP_OPS(X, Br, 32I, 5)  /* a k t ft ff */                              \
  AMP_CMP_OPS(X, Br, 64, 5)   /* a b t ft ff */                              \
  /* A value-producing op and a branch on its result: d a x t ft ff, with   */ \
  /* d = load(a + x) or d = a + x, then branch if d != 0 (Nz) or == 0 (Z).  */ \
  X(Load32BrNz, 6) X(Load32BrZ, 6) X(Load8UBrNz, 6) X(Load8UBrZ, 6)          \
  X(Add32IBrNz, 6) X(Add32IBrZ, 6) X(Sub32BrNz, 6) X(Sub32BrZ, 6)             \
  X(And32IBrNz, 6) X(And32IBrZ, 6)                                           \
  X(BrTable, -1)        /* a n, then n+1 pairs (t ft); last is default */    \
  X(Load8UBrTable, -1)  /* d a o n (t ft)...: d = load8_u(a + o), BrTable d */ \
  X(Return, 0)          /* results are already in fp[0..n) */               \
  X(Return1, 1)         /* a: fp[0] = fp[a] */                               \
  X(ReturnN, 2)         /* n a: fp[0..n) = fp[a..a+n) (a >= n or a == 0) */  \
  X(Call, 2)            /* function index, first argument slot */           \
  X(CallIndirect, 4)    /* type index, table, first argument slot, a */      \
  /* ...Args: then n and n source slots, copied to the argument slots */     \
  /* by the call itself (locals passed as arguments need no Copy). */         \
  X(CallArgs, -1)       /* function index, first argument slot, n, a... */   \
  X(CallIndirectArgs, -1) /* type, table, first argument slot, a, n, a... */ \
  /* Moves. */                                                               \
  X(Copy, 2)            /* d a */                                            \
  X(Copy2, 4)           /* d a d2 a2: d = a, then d2 = a2 */                 \
  X(Const32, 2)         /* d k (zero-extended) */                            \
  X(Const64, 3)         /* d lo hi */                                        \
  X(Select, 4)          /* d a b c: d = c ? a : b */                         \
  X(SelectK1, 4)        /* d k b c: d = c ? k : b (k zero-extended) */       \
  X(SelectK2, 4)        /* d a k c: d = c ? a : k */                         \
  X(GlobalGet32, 2)     /* d global */                                       \
  X(GlobalGet64, 2)     /* d global */                                       \
  X(GlobalSet, 2)       /* global a */                                       \
  /* References and tables. */                                               \
  X(RefFunc, 2)         /* d function index */                               \
  X(TableGet, 3)        /* d table a */                                      \
  X(TableSet, 3)        /* table a v */                                      \
  X(TableSize, 2)       /* d table */                                        \
  X(TableGrow, 4)       /* d table v(init) a(delta) */                       \
  X(TableFill, 4)       /* table a(start) v n */                             \
  X(TableCopy, 5)       /* dst-table src-table d s n */                      \
  X(TableInit, 5)       /* table elem d s n */                               \
  X(ElemDrop, 1)        /* elem */                                           \
  /* Memory 0. */                                                            \
  X(MemorySize, 1)      /* d */                                              \
  X(MemoryGrow, 2)      /* d a */                                            \
  X(MemoryFill, 3)      /* d v n */                                          \
  X(MemoryCopy, 3)      /* d s n */                                          \
  X(MemoryInit, 4)      /* data d s n */                                     \
  X(DataDrop, 1)        /* data */                                           \
  /* Loads: d a o, address a; ...Add: d a b o, address a+b (i32, wrapping); */ \
  /* ...AddI: d a k o, address a+k. Load32 serves i32.load, f32.load and     */ \
  /* i64.load32_u; Load64 i64.load and f64.load.                             */ \
  AMP_LOAD_OPS(X, , 3) AMP_LOAD_OPS(X, Add, 4) AMP_LOAD_OPS(X, AddI, 4)      \
  X(Store32, 3)         /* a v o: i32.store, f32.store, i64.store32 */       \
  X(Store64, 3) X(Store8, 3) X(Store16, 3)                                   \
  /* a k o: store the constant k (sign-extended for Store64I). */            \
  X(Store32I, 3) X(Store64I, 3) X(Store8I, 3) X(Store16I, 3)                 \
  /* Integer arithmetic: d a b, or d a k for the I forms. */                 \
  AMP_INT_BIN_OPS(X, 32) AMP_INT_IMM_OPS(X, 32)                              \
  AMP_CMP_OPS(X, , 32, 3) AMP_CMP_OPS(X, , 32I, 3)                           \
  X(Eqz32, 2) X(Clz32, 2) X(Ctz32, 2) X(Popcnt32, 2)                         \
  X(Extend8S32, 2) X(Extend16S32, 2)                                         \
  AMP_INT_BIN_OPS(X, 64) AMP_INT_IMM_OPS(X, 64)                              \
  AMP_CMP_OPS(X, , 64, 3) AMP_CMP_OPS(X, , 64I, 3)                           \
  X(Eqz64, 2) X(Clz64, 2) X(Ctz64, 2) X(Popcnt64, 2)                         \
  X(Extend8S64, 2) X(Extend16S64, 2) X(Extend32S64, 2) X(Wrap64, 2)          \
  /* Floating point: d a, or d a b. */                                       \
  AMP_FLOAT_OPS(X, 32) AMP_FLOAT_OPS(X, 64)                                  \
  X(Abs64, 2) X(Neg64, 2)                                                    \
  X(I32TruncF32S, 2) X(I32TruncF32U, 2) X(I32TruncF64S, 2) X(I32TruncF64U, 2) \
  X(I64TruncF32S, 2) X(I64TruncF32U, 2) X(I64TruncF64S, 2) X(I64TruncF64U, 2) \
  X(I32TruncSatF32S, 2) X(I32TruncSatF32U, 2) X(I32TruncSatF64S, 2)          \
  X(I32TruncSatF64U, 2) X(I64TruncSatF32S, 2) X(I64TruncSatF32U, 2)          \
  X(I64TruncSatF64S, 2) X(I64TruncSatF64U, 2)                                \
  X(F32ConvertI32S, 2) X(F32ConvertI32U, 2) X(F32ConvertI64S, 2)             \
  X(F32ConvertI64U, 2) X(F32DemoteF64, 2)                                    \
  X(F64ConvertI32S, 2) X(F64ConvertI32U, 2) X(F64ConvertI64S, 2)             \
  X(F64ConvertI64U, 2) X(F64PromoteF32, 2)                                   \
  AMP_PAIRS(AMP_PAIR_OP, X)
// clang-format on

namespace ampoule::wasm {

enum class IOp : uint16_t {
#define AMP_X(name, n) name,
  AMP_INTERNAL_OPS(AMP_X)
#undef AMP_X
  kCount
};

// The conditional branches, and which operand (1-based) of a branch holds
// its target; the fuel operands follow it (ft, then ff).
inline bool IsCondBranch(IOp op) { return op >= IOp::BrNz && op <= IOp::And32IBrZ; }
inline int BranchTargetOperand(IOp op) {
  if (op == IOp::Br) return 1;
  if (op <= IOp::BrZ64) return 2;
  if (op <= IOp::BrGeU64) return 3;
  return 4;
}

// Jump tables: which operand (1-based) holds n; the n+1 (t ft) pairs follow.
inline bool IsTable(IOp op) { return op == IOp::BrTable || op == IOp::Load8UBrTable; }
inline int TableSizeOperand(IOp op) { return op == IOp::BrTable ? 2 : 4; }

// Operand units of `op` (excluding the handler unit); -1 if variable.
int IOpOperandUnits(IOp op);
// "Add32I", for listings and test failure messages.
const char* IOpName(IOp op);

}  // namespace ampoule::wasm
