// The compile pipeline: decode -> validate -> translate, one function at a time.
#include "ampoule/wasm/decoder.h"
#include "ampoule/wasm/runtime.h"
#include "ampoule/wasm/translator.h"
#include "ampoule/wasm/validator.h"

namespace ampoule::wasm {

namespace {

Result<CompiledFunctionPtr> CompileFunction(const Module& module, uint32_t i) {
  // The body is decoded, checked and translated, then its instruction list
  // is dropped: peak memory stays at one function's worth.
  Result<FunctionCode> code = DecodeFunctionCode(module, i);
  if (!code) return code.error();
  AMP_RETURN_IF_ERROR(ValidateFunction(module, i, *code));
  return TranslateFunction(module, i, *code);
}

}  // namespace

Result<std::shared_ptr<const CompiledModule>> CompileModule(std::span<const uint8_t> bytes,
                                                            const CompileOptions& options) {
  Result<Module> decoded = DecodeModule(bytes);
  if (!decoded) return decoded.error();
  auto compiled = std::make_shared<CompiledModule>();
  compiled->module = std::move(*decoded);
  const Module& module = compiled->module;
  AMP_RETURN_IF_ERROR(ValidateModuleHeader(module));

  size_t n = module.functions.size();
  if (options.lazy_functions) {
    compiled->functions.resize(n);
    compiled->lazy_once = std::make_unique<std::once_flag[]>(n);
    compiled->lazy_errors.resize(n);
    return std::shared_ptr<const CompiledModule>(std::move(compiled));
  }
  compiled->functions.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    Result<CompiledFunctionPtr> translated = CompileFunction(module, i);
    if (!translated) return translated.error();
    compiled->functions.push_back(std::move(*translated));
  }
  return std::shared_ptr<const CompiledModule>(std::move(compiled));
}

Result<const CompiledFunction*> CompiledModule::FunctionCode(uint32_t index) const {
  if (!lazy_once) return functions[index].get();
  std::call_once(lazy_once[index], [&] {
    Result<CompiledFunctionPtr> translated = CompileFunction(module, index);
    if (translated) {
      functions[index] = std::move(*translated);
    } else {
      lazy_errors[index] = "function " + std::to_string(index + module.num_imported_funcs) +
                           " cannot run: " + translated.message();
    }
  });
  if (functions[index]) return functions[index].get();
  return Error{lazy_errors[index]};
}

}  // namespace ampoule::wasm
