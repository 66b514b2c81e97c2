// The kernel's `manifest.json` entry: what the kernel is made of.
//
// Written once, by `ampoule kernel pack`, as JSON with sorted keys and no
// timestamps or paths (so it is as reproducible as the rest of the kernel):
//
//   {
//     "kind": "ampoule-kernel",
//     "format_version": 1,               // kernel_format.h's version
//     "cost_table_version": 1,           // src/ampoule/wasm/fuel.h's version
//     "engine": {"sha256": "<hex>", "bytes": N,
//                "build": {"<fact>": "<value>", ...}},   // compiler, libc, flags
//     "runtimes": {"key": "<build-runtimes.sh key>",
//                  "inputs": {...},      // its manifest's inputs: source.*,
//                                        // deb.* (toolchain), flags.*, file.*
//                  "build": {...}},      // its manifest's facts (modules not built, ...)
//     "snapshots": {"included": true|false, "note": "<why not, when not>"},
//     "entries": {"<name>": {"sha256": "<hex>", "bytes": N}, ...}  // all but manifest.json
//   }
//
// A Kernel checks on open that "entries" agrees with the file's table.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ampoule::kernel {

inline constexpr std::string_view kManifestEntry = "manifest.json";
inline constexpr std::string_view kManifestKind = "ampoule-kernel";

struct EntryDigest {
  std::string sha256;  // lowercase hex
  uint64_t bytes = 0;
};

struct KernelManifest {
  uint32_t format_version = 0;
  uint32_t cost_table_version = 0;
  EntryDigest engine;                                // empty sha256 when the kernel has no engine
  std::map<std::string, std::string> engine_build;  // facts about the engine build
  std::string runtimes_key;
  std::map<std::string, std::string> runtimes_inputs;  // verbatim from the runtimes manifest
  std::map<std::string, std::string> runtimes_build;
  bool snapshots = false;
  std::string snapshots_note;
  std::map<std::string, EntryDigest> entries;  // every entry except manifest.json

  // "source.NAME" inputs (package -> version), e.g. python3.11 -> 3.11.2-6+deb12u8.
  std::map<std::string, std::string> RuntimeSources() const;
  // "deb.NAME" inputs (toolchain package -> version).
  std::map<std::string, std::string> RuntimeToolchain() const;
};

// The manifest as JSON (see the layout above). Deterministic: the same
// manifest gives the same bytes.
std::string SerializeManifest(const KernelManifest& manifest);

// Parses a manifest. Errors name the missing or malformed field. Unknown
// fields are ignored, so later writers may add facts.
core::Result<KernelManifest> ParseManifest(std::string_view text);

// Fills `manifest`'s runtime fields from the manifest.json written by
// scripts/build-runtimes.sh ("key", "inputs", "build"; string values only).
core::Status ReadRuntimesManifest(const nlohmann::json& runtimes, KernelManifest* manifest);

}  // namespace ampoule::kernel
