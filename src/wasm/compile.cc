// The compile pipeline: decode -> validate -> translate, one function at a time.
#include "wasm/decoder.h"
#include "wasm/runtime.h"
#include "wasm/translator.h"
#include "wasm/validator.h"

namespace ampoule::wasm {

Result<std::shared_ptr<const CompiledModule>> CompileModule(std::span<const uint8_t> bytes) {
  Result<Module> decoded = DecodeModule(bytes);
  if (!decoded) return decoded.error();
  auto compiled = std::make_shared<CompiledModule>();
  compiled->module = std::move(*decoded);
  const Module& module = compiled->module;
  AMP_RETURN_IF_ERROR(ValidateModuleHeader(module));

  compiled->functions.reserve(module.functions.size());
  for (uint32_t i = 0; i < module.functions.size(); ++i) {
    // Each body is decoded, checked and translated, then its instruction list
    // is dropped: peak memory stays at one function's worth.
    Result<FunctionCode> code = DecodeFunctionCode(module, i);
    if (!code) return code.error();
    AMP_RETURN_IF_ERROR(ValidateFunction(module, i, *code));
    Result<CompiledFunctionPtr> translated = TranslateFunction(module, i, *code);
    if (!translated) return translated.error();
    compiled->functions.push_back(std::move(*translated));
  }
  return std::shared_ptr<const CompiledModule>(std::move(compiled));
}

}  // namespace ampoule::wasm
