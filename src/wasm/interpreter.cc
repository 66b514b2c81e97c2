#include "wasm/interpreter.h"

namespace ampoule::wasm {
struct ExecContext {};
void ExecContextDeleter::operator()(ExecContext* c) const { delete c; }

Outcome Execute(Store&, FunctionInstance*, std::span<const Value>) {
  Outcome o;
  o.stop = StopReason::kTrap;
  o.trap = TrapKind::kHost;
  o.message = "interpreter: not implemented";
  return o;
}
}  // namespace ampoule::wasm
