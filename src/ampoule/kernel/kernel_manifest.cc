// The kernel manifest: JSON in and out (see kernel_manifest.h).
#include "ampoule/kernel/kernel_manifest.h"

#include "core/hex.h"
#include "core/json.h"
#include "core/json_strict.h"

namespace ampoule::kernel {
namespace {

using nlohmann::json;

json DigestJson(const EntryDigest& d) { return json{{"sha256", d.sha256}, {"bytes", d.bytes}}; }

core::Error FieldError(std::string_view field, std::string_view want) {
  return core::Error{"kernel manifest: '" + std::string(field) + "' " + std::string(want)};
}

core::Result<uint32_t> ReadSmallInt(const json& object, std::string_view field) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_number_unsigned() || it->get<uint64_t>() > UINT32_MAX) {
    return FieldError(field, "must be a small non-negative integer");
  }
  return uint32_t(it->get<uint64_t>());
}

core::Result<EntryDigest> ReadDigest(const json& value, std::string_view field) {
  if (!value.is_object()) return FieldError(field, "must be an object with sha256 and bytes");
  auto sha = value.find("sha256");
  auto bytes = value.find("bytes");
  if (sha == value.end() || !sha->is_string() || !core::IsLowerHex(sha->get<std::string>(), 32)) {
    return FieldError(std::string(field) + ".sha256", "must be 64 lowercase hex digits");
  }
  if (bytes == value.end() || !bytes->is_number_unsigned()) {
    return FieldError(std::string(field) + ".bytes", "must be a non-negative integer");
  }
  return EntryDigest{sha->get<std::string>(), bytes->get<uint64_t>()};
}

// Reads an object of strings into `out`; a missing field leaves it empty.
core::Status ReadStringMap(const json& parent, std::string_view field, std::map<std::string, std::string>* out) {
  auto it = parent.find(field);
  if (it == parent.end()) return core::Status::Ok();
  if (!it->is_object()) return FieldError(field, "must be an object of strings");
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string()) return FieldError(std::string(field) + "." + key, "must be a string");
    (*out)[key] = value.get<std::string>();
  }
  return core::Status::Ok();
}

std::map<std::string, std::string> WithPrefix(const std::map<std::string, std::string>& inputs,
                                              std::string_view prefix) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : inputs) {
    if (key.starts_with(prefix)) out[key.substr(prefix.size())] = value;
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> KernelManifest::RuntimeSources() const {
  return WithPrefix(runtimes_inputs, "source.");
}

std::map<std::string, std::string> KernelManifest::RuntimeToolchain() const {
  return WithPrefix(runtimes_inputs, "deb.");
}

std::string SerializeManifest(const KernelManifest& m) {
  json entries = json::object();
  for (const auto& [name, digest] : m.entries) entries[name] = DigestJson(digest);
  json engine = DigestJson(m.engine);
  engine["build"] = json(m.engine_build);
  json root = {
      {"kind", kManifestKind},
      {"format_version", m.format_version},
      {"cost_table_version", m.cost_table_version},
      {"engine", engine},
      {"runtimes", {{"key", m.runtimes_key}, {"inputs", json(m.runtimes_inputs)}, {"build", json(m.runtimes_build)}}},
      {"snapshots", {{"included", m.snapshots}, {"note", m.snapshots_note}}},
      {"entries", entries},
  };
  return core::DumpJson(root, 2) + "\n";
}

core::Result<KernelManifest> ParseManifest(std::string_view text) {
  auto parsed = core::ParseJsonStrict(text, "kernel manifest");
  if (!parsed.ok()) return parsed.error();
  const json& root = *parsed;
  if (!root.is_object()) return core::Error{"kernel manifest: not a JSON object"};
  auto kind = root.find("kind");
  if (kind == root.end() || *kind != kManifestKind) return FieldError("kind", "must be \"ampoule-kernel\"");
  KernelManifest m;
  auto format = ReadSmallInt(root, "format_version");
  if (!format.ok()) return format.error();
  auto costs = ReadSmallInt(root, "cost_table_version");
  if (!costs.ok()) return costs.error();
  m.format_version = *format;
  m.cost_table_version = *costs;
  auto engine = root.find("engine");
  if (engine == root.end()) return FieldError("engine", "is missing");
  auto engine_digest = ReadDigest(*engine, "engine");
  if (!engine_digest.ok()) return engine_digest.error();
  m.engine = *engine_digest;
  CORE_RETURN_IF_ERROR(ReadStringMap(*engine, "build", &m.engine_build));
  auto runtimes = root.find("runtimes");
  if (runtimes != root.end()) CORE_RETURN_IF_ERROR(ReadRuntimesManifest(*runtimes, &m));
  auto snapshots = root.find("snapshots");
  if (snapshots == root.end() || !snapshots->is_object() || !snapshots->contains("included") ||
      !(*snapshots)["included"].is_boolean()) {
    return FieldError("snapshots", "must be an object with a boolean 'included'");
  }
  m.snapshots = (*snapshots)["included"].get<bool>();
  if (snapshots->contains("note") && (*snapshots)["note"].is_string()) m.snapshots_note = (*snapshots)["note"];
  auto entries = root.find("entries");
  if (entries == root.end() || !entries->is_object()) return FieldError("entries", "must be an object");
  for (const auto& [name, value] : entries->items()) {
    auto digest = ReadDigest(value, "entries." + name);
    if (!digest.ok()) return digest.error();
    m.entries[name] = *digest;
  }
  return m;
}

core::Status ReadRuntimesManifest(const json& runtimes, KernelManifest* m) {
  if (!runtimes.is_object()) return FieldError("runtimes", "must be an object");
  auto key = runtimes.find("key");
  if (key != runtimes.end()) {
    if (!key->is_string()) return FieldError("runtimes.key", "must be a string");
    m->runtimes_key = key->get<std::string>();
  }
  CORE_RETURN_IF_ERROR(ReadStringMap(runtimes, "inputs", &m->runtimes_inputs));
  CORE_RETURN_IF_ERROR(ReadStringMap(runtimes, "build", &m->runtimes_build));
  return core::Status::Ok();
}

}  // namespace ampoule::kernel
