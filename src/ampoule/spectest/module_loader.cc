#include "ampoule/spectest/module_loader.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "ampoule/wasm/decoder.h"
#include "core/file_read.h"

namespace ampoule::spectest {
namespace {

using wasm::ValType;

bool HasV128(const std::vector<ValType>& types) {
  return std::find(types.begin(), types.end(), ValType::V128) != types.end();
}

// Whether the decoded module declares a v128 in a type, global or local.
bool DeclaresV128(const wasm::Module& m) {
  for (const wasm::FuncType& t : m.types) {
    if (HasV128(t.params) || HasV128(t.results)) return true;
  }
  for (const wasm::GlobalType& g : m.global_types) {
    if (g.type == ValType::V128) return true;
  }
  for (const wasm::FunctionBody& f : m.functions) {
    if (HasV128(f.locals)) return true;
  }
  return false;
}

bool Contains(std::string haystack, std::string_view needle) {
  for (char& c : haystack) c = char(std::tolower(static_cast<unsigned char>(c)));
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

bool FailedForSimd(std::span<const uint8_t> bytes, const std::string& error) {
  if (Contains(error, "simd") || Contains(error, "v128")) return true;
  core::Result<wasm::Module> decoded = wasm::DecodeModule(bytes);
  return decoded.ok() && DeclaresV128(*decoded);
}

std::string OutcomeMessage(const wasm::Outcome& outcome) {
  switch (outcome.stop) {
    case wasm::StopReason::kReturned: return "returned";
    case wasm::StopReason::kOutOfFuel: return "out of fuel";
    case wasm::StopReason::kExit: return "exit " + std::to_string(outcome.exit_code);
    case wasm::StopReason::kTrap: break;
  }
  if (outcome.trap == wasm::TrapKind::kHost) return outcome.message;
  return wasm::TrapMessage(outcome.trap);
}

LoadResult CompileFile(const std::filesystem::path& path,
                       std::shared_ptr<const wasm::CompiledModule>* compiled) {
  LoadResult r;
  core::Result<std::string> read = core::ReadFileCapped(path.string());
  if (!read.ok()) {
    r.message = read.message();
    return r;
  }
  std::vector<uint8_t> bytes(read->begin(), read->end());
  auto result = wasm::CompileModule(bytes);
  if (!result) {
    r.stage = FailedForSimd(bytes, result.message()) ? LoadResult::Stage::kSimd
                                                     : LoadResult::Stage::kCompileFailed;
    r.message = result.message();
    return r;
  }
  *compiled = std::move(*result);
  r.stage = LoadResult::Stage::kCompiled;
  return r;
}

LoadResult LoadFile(const std::filesystem::path& path, wasm::Store& store, const Linker& linker,
                    uint64_t fuel) {
  std::shared_ptr<const wasm::CompiledModule> compiled;
  LoadResult r = CompileFile(path, &compiled);
  if (r.stage != LoadResult::Stage::kCompiled) return r;

  ResolvedImports imports = linker.Resolve(compiled->module);
  if (imports.kind != ResolvedImports::Kind::kOk) {
    r.stage = imports.kind == ResolvedImports::Kind::kSimdDependency ? LoadResult::Stage::kSimdDependency
                                                                     : LoadResult::Stage::kLinkFailed;
    r.message = imports.message;
    return r;
  }
  store.set_fuel(fuel);
  wasm::InstantiateResult inst = store.Instantiate(compiled, imports.externs);
  switch (inst.kind) {
    case wasm::InstantiateResult::Kind::kOk:
      r.stage = LoadResult::Stage::kReady;
      r.instance = inst.instance;
      break;
    case wasm::InstantiateResult::Kind::kLinkError:
      r.stage = LoadResult::Stage::kLinkFailed;
      r.message = inst.message;
      break;
    case wasm::InstantiateResult::Kind::kTrap:
      r.stage = LoadResult::Stage::kTrapped;
      r.outcome = std::move(inst.outcome);
      r.message = OutcomeMessage(r.outcome);
      break;
  }
  return r;
}

}  // namespace ampoule::spectest
