// Assembling a kernel from a build (see kernel_pack.h).
#include "ampoule/kernel/kernel_pack.h"

#include <filesystem>

#include "ampoule/kernel/entry_names.h"
#include "ampoule/kernel/kernel_format.h"
#include "ampoule/kernel/kernel_manifest.h"
#include "ampoule/wasm/fuel.h"
#include "core/file_read.h"
#include "core/json_strict.h"
#include "core/sha256.h"

namespace ampoule::kernel {
namespace {

// Larger than any runtime file or engine we build, small enough to refuse a
// wrong path (a disk image) quickly.
constexpr size_t kMaxInputFileBytes = size_t(512) << 20;

struct RuntimeFile {
  const char* path;        // in the runtimes folder
  std::string_view entry;  // in the kernel
};
constexpr RuntimeFile kRuntimeFiles[] = {
    {"python.wasm", kPythonModuleEntry},
    {"lib/python311.zip", kPythonStdlibEntry},
    {"js.wasm", kJsModuleEntry},
    {"share/zoneinfo.tar", kTzdataEntry},
};

core::Result<std::vector<uint8_t>> ReadBytes(const std::string& path) {
  auto text = core::ReadFileCapped(path, kMaxInputFileBytes);
  if (!text.ok()) return text.error();
  return std::vector<uint8_t>(text->begin(), text->end());
}

// The SHA-256 the runtimes manifest records for output `rel`, or an error.
core::Result<std::string> RecordedSha256(const nlohmann::json& manifest, const std::string& rel) {
  auto outputs = manifest.find("outputs");
  if (outputs == manifest.end() || !outputs->is_object() || !outputs->contains(rel) ||
      !(*outputs)[rel].is_object() || !(*outputs)[rel].contains("sha256") || !(*outputs)[rel]["sha256"].is_string()) {
    return core::Error{"the runtimes manifest lists no SHA-256 for '" + rel + "'"};
  }
  return (*outputs)[rel]["sha256"].get<std::string>();
}

}  // namespace

core::Result<KernelBuild> ReadKernelBuild(const std::string& engine_path, const std::string& runtimes_dir) {
  KernelBuild build;
  auto engine = ReadBytes(engine_path);
  if (!engine.ok()) return core::Error{"engine: " + engine.message()};
  build.engine = std::move(*engine);
  std::filesystem::path dir(runtimes_dir);
  auto text = core::ReadFileCapped((dir / "manifest.json").string(), size_t(1) << 20);
  if (!text.ok()) return core::Error{"runtimes: " + text.message()};
  auto manifest = core::ParseJsonStrict(*text, "runtimes manifest");
  if (!manifest.ok()) return manifest.error();
  if (!manifest->is_object()) return core::Error{"the runtimes manifest is not a JSON object"};
  build.runtimes_manifest = std::move(*manifest);
  for (const RuntimeFile& f : kRuntimeFiles) {
    std::string path = (dir / f.path).string();
    auto bytes = ReadBytes(path);
    if (!bytes.ok()) return core::Error{"runtimes: " + bytes.message()};
    auto recorded = RecordedSha256(build.runtimes_manifest, f.path);
    if (!recorded.ok()) return recorded.error();
    if (core::Sha256Hex(*bytes) != *recorded) {
      return core::Error{path + " does not have the SHA-256 its manifest records (" + *recorded +
                   "); the runtimes folder mixes two builds: rebuild it"};
    }
    build.runtime_entries[std::string(f.entry)] = std::move(*bytes);
  }
  return build;
}

core::Result<std::vector<uint8_t>> AssembleKernel(const KernelBuild& build) {
  KernelManifest m;
  m.format_version = kKernelFormatVersion;
  m.cost_table_version = wasm::kFuelCostTableVersion;
  m.engine = {core::Sha256Hex(build.engine), build.engine.size()};
  m.engine_build = build.engine_build;
  CORE_RETURN_IF_ERROR(ReadRuntimesManifest(build.runtimes_manifest, &m));
  m.snapshots = build.snapshots;
  m.snapshots_note = build.snapshots_note;
  std::vector<PackEntry> entries;
  entries.push_back({std::string(kEngineEntry), build.engine});
  for (const auto& [name, bytes] : build.runtime_entries) entries.push_back({name, bytes});
  for (const PackEntry& e : entries) m.entries[e.name] = {core::Sha256Hex(e.data), e.data.size()};
  std::string manifest = SerializeManifest(m);
  entries.push_back({std::string(kManifestEntry),
                     {reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size()}});
  return PackKernel(entries);
}

}  // namespace ampoule::kernel
