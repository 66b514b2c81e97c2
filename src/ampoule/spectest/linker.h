// The names a spec test script links against: the `spectest` host module and
// every module the script registers, and how one module's imports resolve.
//
// Not thread-safe; one Linker serves one script run.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/spectest/spectest_module.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::spectest {

// What became of a module a script defined. A script keeps referring to a
// module that did not load (by name, or as the latest module), so the later
// commands can say why they cannot run.
struct ModuleSlot {
  enum class State : uint8_t {
    kReady,   // instantiated; `instance` is set
    kFailed,  // did not compile, link or instantiate
    kSimd,    // needs SIMD, which the engine does not support yet
  };
  State state = State::kFailed;
  wasm::Instance* instance = nullptr;  // owned by the store
  uint32_t line = 0;                   // where the script defined it
};

struct ResolvedImports {
  enum class Kind : uint8_t {
    kOk,              // `externs` holds one entry per import, in order
    kUnknown,         // an import names nothing registered; see `message`
    kSimdDependency,  // an import comes from a registered module that needed SIMD
  } kind = Kind::kOk;
  std::vector<wasm::Extern> externs;
  std::string message;
};

class Linker {
 public:
  // Creates the `spectest` module in `store` and registers it.
  explicit Linker(wasm::Store& store);

  // Makes `slot`'s exports importable under the module name `as` (replacing
  // an earlier registration of that name, as the reference harness does).
  void Register(const std::string& as, const ModuleSlot& slot);

  // Finds every import of `module`. Type compatibility is left to
  // Store::Instantiate, which reports it as a link error.
  ResolvedImports Resolve(const wasm::Module& module) const;

 private:
  SpectestModule spectest_;
  std::map<std::string, ModuleSlot, std::less<>> registered_;
};

}  // namespace ampoule::spectest
