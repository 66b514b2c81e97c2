// Turning .wast scripts into JSON commands and module binaries with wabt's
// `wast2json` (Debian's wabt 1.0.32; see docs/decisions/0006).
//
// The engine reads only the binary format, so the text-format scripts are
// converted by a tool outside it, either into a scratch folder or into a
// cache folder keyed by each script's content.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "core/result.h"

namespace ampoule::spectest {

// Finds `wast2json` on PATH. The error says how to install it.
core::Result<std::filesystem::path> FindWast2Json();

// Converts `wast` into `out_dir` (created if missing), as wast2json names
// things: <stem>.json plus <stem>.N.wasm / <stem>.N.wat. Returns the JSON
// path. On failure the message carries wast2json's own error output.
core::Result<std::filesystem::path> ConvertWast(const std::filesystem::path& wast2json,
                                          const std::filesystem::path& wast,
                                          const std::filesystem::path& out_dir);

// Like ConvertWast, but reuses an earlier conversion of the same content
// from `cache_dir`/<stem>-<hash>/. A new entry is written under a temporary
// name and renamed into place, so a half-written entry is never reused.
core::Result<std::filesystem::path> ConvertWastCached(const std::filesystem::path& wast2json,
                                                const std::filesystem::path& wast,
                                                const std::filesystem::path& cache_dir);

// The cache key's hash: 64-bit FNV-1a of `bytes`, as 16 hex digits. A cache
// key, not a security measure.
std::string ContentHash(std::span<const uint8_t> bytes);

}  // namespace ampoule::spectest
