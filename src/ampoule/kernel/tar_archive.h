// Reading a ustar archive held in memory: how a kernel carries a tree of
// small files in one entry (the time-zone data, docs/kernel.md).
//
// Only what the packer writes is accepted: POSIX ustar headers with valid
// checksums, regular files and directories (no links, devices or extended
// headers), names of at most kMaxTarPathBytes that are relative and never
// "." or ".." after a leading "./" is dropped, at most kMaxTarFiles files.
// Anything else is an error naming the entry; nothing is ever read past the
// end of the bytes.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"

namespace ampoule::kernel {

constexpr size_t kMaxTarFiles = 10'000;
constexpr size_t kMaxTarPathBytes = 255;

struct TarFile {
  std::string path;                // "America/New_York"
  std::span<const uint8_t> bytes;  // points into the archive
};

// The regular files of `archive` in archive order (directories are implied
// by the paths and not listed).
core::Result<std::vector<TarFile>> ReadTar(std::span<const uint8_t> archive);

}  // namespace ampoule::kernel
