// Reading files with a size cap, for everything the receipt tools read.
//
// SPEC A6 caps receipts, programs and inputs at 64 MiB and gives "too large"
// its own exit code, so the cap is reported apart from other I/O errors.
//
// Thread-safe: no state.
#pragma once

#include <cstddef>
#include <string>

#include "util/result.h"

namespace ampoule::receipt {

// The cap on any receipt, program, input or output file: 64 MiB.
inline constexpr size_t kMaxFileBytes = size_t{64} << 20;

// Reads the whole of `path` (a regular file, pipe or device) into memory.
// Returns the bytes, or an error if the file cannot be read or holds more
// than `limit` bytes. When the error is the size cap, `*over_limit` is set
// to true (if given); for any other outcome it is set to false. Never reads
// more than `limit + 1` bytes, so an endless device cannot exhaust memory.
Result<std::string> ReadFileCapped(const std::string& path, size_t limit = kMaxFileBytes,
                                   bool* over_limit = nullptr);

// As ReadFileCapped, from an open descriptor (read from its current offset
// to the end; not closed). `path` only names the file in errors.
Result<std::string> ReadFdCapped(int fd, const std::string& path, size_t limit = kMaxFileBytes,
                                 bool* over_limit = nullptr);

}  // namespace ampoule::receipt
