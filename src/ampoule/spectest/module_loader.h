// Loading a script's module file: read, compile, resolve imports,
// instantiate, stopping at the first stage that fails and saying which.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "ampoule/spectest/linker.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::spectest {

struct LoadResult {
  enum class Stage : uint8_t {
    kReadFailed,      // the file could not be read (message)
    kCompileFailed,   // CompileModule failed (message)
    kSimd,            // compiling failed and the module uses SIMD (message)
    kCompiled,        // compiled; instantiation not asked for
    kLinkFailed,      // imports did not resolve or match (message)
    kSimdDependency,  // an import comes from a module that needed SIMD
    kTrapped,         // a segment or the start function stopped it (outcome)
    kReady,           // instantiated (instance)
  } stage = Stage::kReadFailed;
  std::string message;
  wasm::Outcome outcome;
  wasm::Instance* instance = nullptr;
};

// Reads and compiles `path`.
LoadResult CompileFile(const std::filesystem::path& path,
                       std::shared_ptr<const wasm::CompiledModule>* compiled);

// Reads, compiles and instantiates `path` in `store`, with imports from `linker`
// and `fuel` for the start function.
LoadResult LoadFile(const std::filesystem::path& path, wasm::Store& store, const Linker& linker,
                    uint64_t fuel);

// Whether a module that failed to compile with `error` did so because it
// uses SIMD: the error says so, or the module declares a v128 anywhere.
bool FailedForSimd(std::span<const uint8_t> bytes, const std::string& error);

// The message an engine outcome amounts to, for comparing with a script's
// expected trap text: the trap message, "out of fuel", or "exit N".
std::string OutcomeMessage(const wasm::Outcome& outcome);

}  // namespace ampoule::spectest
