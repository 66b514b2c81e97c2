#include "ampoule/spectest/linker.h"

namespace ampoule::spectest {

Linker::Linker(wasm::Store& store) : spectest_(store) {}

void Linker::Register(const std::string& as, const ModuleSlot& slot) { registered_[as] = slot; }

ResolvedImports Linker::Resolve(const wasm::Module& module) const {
  ResolvedImports out;
  out.externs.reserve(module.imports.size());
  for (const wasm::Import& imp : module.imports) {
    auto unknown = [&](const std::string& why) {
      out.kind = ResolvedImports::Kind::kUnknown;
      out.message = "unknown import \"" + imp.module + "\" \"" + imp.name + "\": " + why;
      out.externs.clear();
      return out;
    };
    std::optional<wasm::Extern> ext;
    if (auto reg = registered_.find(imp.module); reg != registered_.end()) {
      const ModuleSlot& slot = reg->second;
      if (slot.state == ModuleSlot::State::kSimd) {
        out.kind = ResolvedImports::Kind::kSimdDependency;
        out.message = "imports from \"" + imp.module + "\", which needs SIMD";
        out.externs.clear();
        return out;
      }
      if (slot.state != ModuleSlot::State::kReady) {
        return unknown("the module registered as \"" + imp.module + "\" (line " +
                       std::to_string(slot.line) + ") did not load");
      }
      ext = slot.instance->GetExport(imp.name);
    } else if (imp.module == "spectest") {
      ext = spectest_.GetExport(imp.name);
    } else {
      return unknown("no module is registered under that name");
    }
    if (!ext) return unknown("the module has no such export");
    out.externs.push_back(*ext);
  }
  return out;
}

}  // namespace ampoule::spectest
