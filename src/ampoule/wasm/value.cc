#include "ampoule/wasm/value.h"

namespace ampoule::wasm {

const char* TrapMessage(TrapKind kind) {
  switch (kind) {
    case TrapKind::kNone: return "no trap";
    case TrapKind::kUnreachable: return "unreachable";
    case TrapKind::kMemoryOutOfBounds: return "out of bounds memory access";
    case TrapKind::kTableOutOfBounds: return "out of bounds table access";
    case TrapKind::kUndefinedElement: return "undefined element";
    case TrapKind::kUninitializedElement: return "uninitialized element";
    case TrapKind::kIndirectCallTypeMismatch: return "indirect call type mismatch";
    case TrapKind::kIntegerDivideByZero: return "integer divide by zero";
    case TrapKind::kIntegerOverflow: return "integer overflow";
    case TrapKind::kInvalidConversion: return "invalid conversion to integer";
    case TrapKind::kNullReference: return "null reference";
    case TrapKind::kCallStackExhausted: return "call stack exhausted";
    case TrapKind::kValueStackExhausted: return "call stack exhausted";
    case TrapKind::kHost: return "host error";
  }
  return "?";
}

const char* TrapName(TrapKind kind) {
  switch (kind) {
    case TrapKind::kNone: return "none";
    case TrapKind::kUnreachable: return "unreachable";
    case TrapKind::kMemoryOutOfBounds: return "memory_out_of_bounds";
    case TrapKind::kTableOutOfBounds: return "table_out_of_bounds";
    case TrapKind::kUndefinedElement: return "undefined_element";
    case TrapKind::kUninitializedElement: return "uninitialized_element";
    case TrapKind::kIndirectCallTypeMismatch: return "indirect_call_type_mismatch";
    case TrapKind::kIntegerDivideByZero: return "integer_divide_by_zero";
    case TrapKind::kIntegerOverflow: return "integer_overflow";
    case TrapKind::kInvalidConversion: return "invalid_conversion";
    case TrapKind::kNullReference: return "null_reference";
    case TrapKind::kCallStackExhausted: return "call_stack_exhausted";
    case TrapKind::kValueStackExhausted: return "value_stack_exhausted";
    case TrapKind::kHost: return "host";
  }
  return "?";
}

const char* StopReasonName(StopReason r) {
  switch (r) {
    case StopReason::kReturned: return "returned";
    case StopReason::kTrap: return "trap";
    case StopReason::kOutOfFuel: return "fuel";
    case StopReason::kExit: return "exit";
  }
  return "?";
}

}  // namespace ampoule::wasm
