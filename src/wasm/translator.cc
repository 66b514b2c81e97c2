#include "wasm/translator.h"

namespace ampoule::wasm {
struct CompiledFunction {};
void CompiledFunctionDeleter::operator()(CompiledFunction* f) const { delete f; }
Result<CompiledFunctionPtr> TranslateFunction(const Module&, uint32_t, const FunctionCode&) {
  return Error{"translator: not implemented"};
}
}  // namespace ampoule::wasm
