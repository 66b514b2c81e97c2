// Translator: the plain numeric instructions, mapped onto internal ops.
//
// Bit-preserving conversions (reinterpretations, i64.extend_i32_u) emit
// nothing: slots hold 32-bit values zero-extended, so the bits already are
// the result. f32.abs and f32.neg are bit operations on those bits.
#include "ampoule/wasm/translator_internal.h"

namespace ampoule::wasm::translator {

bool FunctionTranslator::OnNumeric(const Instr& in) {
  constexpr IOp kNo = IOp::kCount;
  int cmp = -1;
  bool cmp64 = false;
  switch (in.op) {
    // Integer comparisons (fused with a following br_if / if).
    case Opcode::I32Eqz: OnEqz(false); return true;
    case Opcode::I64Eqz: OnEqz(true); return true;
    case Opcode::I32Eq: cmp = 0; break;
    case Opcode::I32Ne: cmp = 1; break;
    case Opcode::I32LtS: cmp = 2; break;
    case Opcode::I32LtU: cmp = 3; break;
    case Opcode::I32GtS: cmp = 4; break;
    case Opcode::I32GtU: cmp = 5; break;
    case Opcode::I32LeS: cmp = 6; break;
    case Opcode::I32LeU: cmp = 7; break;
    case Opcode::I32GeS: cmp = 8; break;
    case Opcode::I32GeU: cmp = 9; break;
    case Opcode::I64Eq: cmp = 0; cmp64 = true; break;
    case Opcode::I64Ne: cmp = 1; cmp64 = true; break;
    case Opcode::I64LtS: cmp = 2; cmp64 = true; break;
    case Opcode::I64LtU: cmp = 3; cmp64 = true; break;
    case Opcode::I64GtS: cmp = 4; cmp64 = true; break;
    case Opcode::I64GtU: cmp = 5; cmp64 = true; break;
    case Opcode::I64LeS: cmp = 6; cmp64 = true; break;
    case Opcode::I64LeU: cmp = 7; cmp64 = true; break;
    case Opcode::I64GeS: cmp = 8; cmp64 = true; break;
    case Opcode::I64GeU: cmp = 9; cmp64 = true; break;
    default: break;
  }
  if (cmp >= 0) {
    OnIntCompare(cmp, cmp64);
    return true;
  }
  switch (in.op) {
    // i32
    case Opcode::I32Clz: OnUnary(IOp::Clz32); break;
    case Opcode::I32Ctz: OnUnary(IOp::Ctz32); break;
    case Opcode::I32Popcnt: OnUnary(IOp::Popcnt32); break;
    case Opcode::I32Add: OnBinary(IOp::Add32, IOp::Add32I, IOp::Add32I, false); break;
    case Opcode::I32Sub: OnSub(false); break;
    case Opcode::I32Mul: OnBinary(IOp::Mul32, IOp::Mul32I, IOp::Mul32I, false); break;
    case Opcode::I32DivS: OnBinary(IOp::DivS32, kNo, kNo, false); break;
    case Opcode::I32DivU: OnBinary(IOp::DivU32, kNo, kNo, false); break;
    case Opcode::I32RemS: OnBinary(IOp::RemS32, kNo, kNo, false); break;
    case Opcode::I32RemU: OnBinary(IOp::RemU32, kNo, kNo, false); break;
    case Opcode::I32And:
      if (!OnAndBranch()) OnBinary(IOp::And32, IOp::And32I, IOp::And32I, false);
      break;
    case Opcode::I32Or: OnBinary(IOp::Or32, IOp::Or32I, IOp::Or32I, false); break;
    case Opcode::I32Xor: OnBinary(IOp::Xor32, IOp::Xor32I, IOp::Xor32I, false); break;
    case Opcode::I32Shl: OnBinary(IOp::Shl32, IOp::Shl32I, kNo, false); break;
    case Opcode::I32ShrS:
      if (!OnSignExtendShift()) OnBinary(IOp::ShrS32, IOp::ShrS32I, kNo, false);
      break;
    case Opcode::I32ShrU: OnBinary(IOp::ShrU32, IOp::ShrU32I, kNo, false); break;
    case Opcode::I32Rotl: OnBinary(IOp::Rotl32, kNo, kNo, false); break;
    case Opcode::I32Rotr: OnBinary(IOp::Rotr32, kNo, kNo, false); break;
    case Opcode::I32Extend8S: OnUnary(IOp::Extend8S32); break;
    case Opcode::I32Extend16S: OnUnary(IOp::Extend16S32); break;
    case Opcode::I32WrapI64: OnUnary(IOp::Wrap64); break;
    // i64
    case Opcode::I64Clz: OnUnary(IOp::Clz64); break;
    case Opcode::I64Ctz: OnUnary(IOp::Ctz64); break;
    case Opcode::I64Popcnt: OnUnary(IOp::Popcnt64); break;
    case Opcode::I64Add: OnBinary(IOp::Add64, IOp::Add64I, IOp::Add64I, true); break;
    case Opcode::I64Sub: OnSub(true); break;
    case Opcode::I64Mul: OnBinary(IOp::Mul64, IOp::Mul64I, IOp::Mul64I, true); break;
    case Opcode::I64DivS: OnBinary(IOp::DivS64, kNo, kNo, true); break;
    case Opcode::I64DivU: OnBinary(IOp::DivU64, kNo, kNo, true); break;
    case Opcode::I64RemS: OnBinary(IOp::RemS64, kNo, kNo, true); break;
    case Opcode::I64RemU: OnBinary(IOp::RemU64, kNo, kNo, true); break;
    case Opcode::I64And: OnBinary(IOp::And64, IOp::And64I, IOp::And64I, true); break;
    case Opcode::I64Or: OnBinary(IOp::Or64, IOp::Or64I, IOp::Or64I, true); break;
    case Opcode::I64Xor: OnBinary(IOp::Xor64, IOp::Xor64I, IOp::Xor64I, true); break;
    case Opcode::I64Shl: OnBinary(IOp::Shl64, IOp::Shl64I, kNo, true); break;
    case Opcode::I64ShrS: OnBinary(IOp::ShrS64, IOp::ShrS64I, kNo, true); break;
    case Opcode::I64ShrU: OnBinary(IOp::ShrU64, IOp::ShrU64I, kNo, true); break;
    case Opcode::I64Rotl: OnBinary(IOp::Rotl64, kNo, kNo, true); break;
    case Opcode::I64Rotr: OnBinary(IOp::Rotr64, kNo, kNo, true); break;
    case Opcode::I64Extend8S: OnUnary(IOp::Extend8S64); break;
    case Opcode::I64Extend16S: OnUnary(IOp::Extend16S64); break;
    case Opcode::I64Extend32S:
    case Opcode::I64ExtendI32S: OnUnary(IOp::Extend32S64); break;
    case Opcode::I64ExtendI32U:
    case Opcode::I32ReinterpretF32:
    case Opcode::I64ReinterpretF64:
    case Opcode::F32ReinterpretI32:
    case Opcode::F64ReinterpretI64: break;  // same bits
    // f32
    case Opcode::F32Abs: OnUnaryImm(IOp::And32I, 0x7fffffffu); break;
    case Opcode::F32Neg: OnUnaryImm(IOp::Xor32I, 0x80000000u); break;
    case Opcode::F32Ceil: OnUnary(IOp::Ceil32); break;
    case Opcode::F32Floor: OnUnary(IOp::Floor32); break;
    case Opcode::F32Trunc: OnUnary(IOp::Trunc32); break;
    case Opcode::F32Nearest: OnUnary(IOp::Nearest32); break;
    case Opcode::F32Sqrt: OnUnary(IOp::Sqrt32); break;
    case Opcode::F32Add: OnBinary(IOp::FAdd32, kNo, kNo, false); break;
    case Opcode::F32Sub: OnBinary(IOp::FSub32, kNo, kNo, false); break;
    case Opcode::F32Mul: OnBinary(IOp::FMul32, kNo, kNo, false); break;
    case Opcode::F32Div: OnBinary(IOp::FDiv32, kNo, kNo, false); break;
    case Opcode::F32Min: OnBinary(IOp::Min32, kNo, kNo, false); break;
    case Opcode::F32Max: OnBinary(IOp::Max32, kNo, kNo, false); break;
    case Opcode::F32Copysign: OnBinary(IOp::Copysign32, kNo, kNo, false); break;
    case Opcode::F32Eq: OnBinary(IOp::FEq32, kNo, kNo, false); break;
    case Opcode::F32Ne: OnBinary(IOp::FNe32, kNo, kNo, false); break;
    case Opcode::F32Lt: OnBinary(IOp::FLt32, kNo, kNo, false); break;
    case Opcode::F32Gt: OnBinary(IOp::FGt32, kNo, kNo, false); break;
    case Opcode::F32Le: OnBinary(IOp::FLe32, kNo, kNo, false); break;
    case Opcode::F32Ge: OnBinary(IOp::FGe32, kNo, kNo, false); break;
    // f64
    case Opcode::F64Abs: OnUnary(IOp::Abs64); break;
    case Opcode::F64Neg: OnUnary(IOp::Neg64); break;
    case Opcode::F64Ceil: OnUnary(IOp::Ceil64); break;
    case Opcode::F64Floor: OnUnary(IOp::Floor64); break;
    case Opcode::F64Trunc: OnUnary(IOp::Trunc64); break;
    case Opcode::F64Nearest: OnUnary(IOp::Nearest64); break;
    case Opcode::F64Sqrt: OnUnary(IOp::Sqrt64); break;
    case Opcode::F64Add: OnBinary(IOp::FAdd64, kNo, kNo, true); break;
    case Opcode::F64Sub: OnBinary(IOp::FSub64, kNo, kNo, true); break;
    case Opcode::F64Mul: OnBinary(IOp::FMul64, kNo, kNo, true); break;
    case Opcode::F64Div: OnBinary(IOp::FDiv64, kNo, kNo, true); break;
    case Opcode::F64Min: OnBinary(IOp::Min64, kNo, kNo, true); break;
    case Opcode::F64Max: OnBinary(IOp::Max64, kNo, kNo, true); break;
    case Opcode::F64Copysign: OnBinary(IOp::Copysign64, kNo, kNo, true); break;
    case Opcode::F64Eq: OnBinary(IOp::FEq64, kNo, kNo, true); break;
    case Opcode::F64Ne: OnBinary(IOp::FNe64, kNo, kNo, true); break;
    case Opcode::F64Lt: OnBinary(IOp::FLt64, kNo, kNo, true); break;
    case Opcode::F64Gt: OnBinary(IOp::FGt64, kNo, kNo, true); break;
    case Opcode::F64Le: OnBinary(IOp::FLe64, kNo, kNo, true); break;
    case Opcode::F64Ge: OnBinary(IOp::FGe64, kNo, kNo, true); break;
    // Conversions.
    case Opcode::I32TruncF32S: OnUnary(IOp::I32TruncF32S); break;
    case Opcode::I32TruncF32U: OnUnary(IOp::I32TruncF32U); break;
    case Opcode::I32TruncF64S: OnUnary(IOp::I32TruncF64S); break;
    case Opcode::I32TruncF64U: OnUnary(IOp::I32TruncF64U); break;
    case Opcode::I64TruncF32S: OnUnary(IOp::I64TruncF32S); break;
    case Opcode::I64TruncF32U: OnUnary(IOp::I64TruncF32U); break;
    case Opcode::I64TruncF64S: OnUnary(IOp::I64TruncF64S); break;
    case Opcode::I64TruncF64U: OnUnary(IOp::I64TruncF64U); break;
    case Opcode::I32TruncSatF32S: OnUnary(IOp::I32TruncSatF32S); break;
    case Opcode::I32TruncSatF32U: OnUnary(IOp::I32TruncSatF32U); break;
    case Opcode::I32TruncSatF64S: OnUnary(IOp::I32TruncSatF64S); break;
    case Opcode::I32TruncSatF64U: OnUnary(IOp::I32TruncSatF64U); break;
    case Opcode::I64TruncSatF32S: OnUnary(IOp::I64TruncSatF32S); break;
    case Opcode::I64TruncSatF32U: OnUnary(IOp::I64TruncSatF32U); break;
    case Opcode::I64TruncSatF64S: OnUnary(IOp::I64TruncSatF64S); break;
    case Opcode::I64TruncSatF64U: OnUnary(IOp::I64TruncSatF64U); break;
    case Opcode::F32ConvertI32S: OnUnary(IOp::F32ConvertI32S); break;
    case Opcode::F32ConvertI32U: OnUnary(IOp::F32ConvertI32U); break;
    case Opcode::F32ConvertI64S: OnUnary(IOp::F32ConvertI64S); break;
    case Opcode::F32ConvertI64U: OnUnary(IOp::F32ConvertI64U); break;
    case Opcode::F32DemoteF64: OnUnary(IOp::F32DemoteF64); break;
    case Opcode::F64ConvertI32S: OnUnary(IOp::F64ConvertI32S); break;
    case Opcode::F64ConvertI32U: OnUnary(IOp::F64ConvertI32U); break;
    case Opcode::F64ConvertI64S: OnUnary(IOp::F64ConvertI64S); break;
    case Opcode::F64ConvertI64U: OnUnary(IOp::F64ConvertI64U); break;
    case Opcode::F64PromoteF32: OnUnary(IOp::F64PromoteF32); break;
    default: return false;
  }
  return true;
}

}  // namespace ampoule::wasm::translator
