// The names of the entries a kernel carries, in one place: the packer
// writes them, the engine and the tools read them.
#pragma once

#include <string_view>

namespace ampoule::kernel {

inline constexpr std::string_view kEngineEntry = "engine";                 // static ELF, run jailed
inline constexpr std::string_view kPythonModuleEntry = "python/python.wasm";
inline constexpr std::string_view kPythonStdlibEntry = "python/python311.zip";
inline constexpr std::string_view kPythonSnapshotEntry = "python/snapshot";
inline constexpr std::string_view kJsModuleEntry = "js/js.wasm";
inline constexpr std::string_view kJsSnapshotEntry = "js/snapshot";
// Debian's zoneinfo tree as a ustar archive (tar_archive.h).
inline constexpr std::string_view kTzdataEntry = "tzdata/zoneinfo.tar";
// manifest.json: kManifestEntry in kernel_manifest.h.

}  // namespace ampoule::kernel
