// The compile pipeline: decode -> validate -> translate, one function at a time.
#include "ampoule/wasm/decoder.h"
#include "ampoule/wasm/runtime.h"
#include "ampoule/wasm/translator.h"
#include "ampoule/wasm/validator.h"

namespace ampoule::wasm {

namespace {

core::Result<CompiledFunctionPtr> CompileFunction(const Module& module, uint32_t i) {
  // The body is decoded, checked and translated, then its instruction list
  // is dropped: peak memory stays at one function's worth.
  core::Result<FunctionCode> code = DecodeFunctionCode(module, i);
  if (!code) return code.error();
  CORE_RETURN_IF_ERROR(ValidateFunction(module, i, *code));
  return TranslateFunction(module, i, *code);
}

}  // namespace

core::Result<std::shared_ptr<const CompiledModule>> CompileModule(std::span<const uint8_t> bytes,
                                                            const CompileOptions& options) {
  core::Result<Module> decoded = DecodeModule(bytes);
  if (!decoded) return decoded.error();
  auto compiled = std::make_shared<CompiledModule>();
  compiled->module = std::move(*decoded);
  const Module& module = compiled->module;
  CORE_RETURN_IF_ERROR(ValidateModuleHeader(module));

  size_t n = module.functions.size();
  if (options.lazy_functions) {
    compiled->functions.resize(n);
    compiled->lazy_once = std::make_unique<std::once_flag[]>(n);
    compiled->lazy_errors.resize(n);
    return std::shared_ptr<const CompiledModule>(std::move(compiled));
  }
  compiled->functions.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    core::Result<CompiledFunctionPtr> translated = CompileFunction(module, i);
    if (!translated) return translated.error();
    compiled->functions.push_back(std::move(*translated));
  }
  return std::shared_ptr<const CompiledModule>(std::move(compiled));
}

core::Result<const CompiledFunction*> CompiledModule::FunctionCode(uint32_t index) const {
  if (!lazy_once) return functions[index].get();
  std::call_once(lazy_once[index], [&] {
    core::Result<CompiledFunctionPtr> translated = CompileFunction(module, index);
    if (translated) {
      functions[index] = std::move(*translated);
    } else {
      lazy_errors[index] = "function " + std::to_string(index + module.num_imported_funcs) +
                           " cannot run: " + translated.message();
    }
  });
  if (functions[index]) return functions[index].get();
  return core::Error{lazy_errors[index]};
}

}  // namespace ampoule::wasm
