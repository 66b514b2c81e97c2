// SHA-256 of files the verifier is given, read through the one safe reader
// (core/file_read.h).
//
// A kernel file can be large and is only ever hashed, so it is streamed; it
// must be a regular file (the engine maps it), so a FIFO or /dev/zero is
// refused at once instead of read forever. Every other file (program,
// inputs, outputs, stdin) is read whole under the 64 MiB cap, because a
// replay needs its bytes and the bytes hashed must be the bytes used.
//
// Thread-safe: no state.
#pragma once

#include <string>

#include "core/file_read.h"
#include "core/result.h"

namespace ampoule::verify {

// Lowercase hex SHA-256 of the regular file at `path` (at most the kernel
// format's 4 GiB), read in chunks. Error naming the path if it cannot be
// opened or read, or is not a regular file.
core::Result<std::string> Sha256File(const std::string& path);

// A file read whole under core::kMaxFileBytes, with its digest.
struct LoadedFile {
  std::string bytes;
  std::string sha256;  // lowercase hex
};

// Reads `path`, named by `from` (core/file_read.h: a path from an
// untrusted document must be a regular file). On error, `*too_large` tells
// whether the cause was the 64 MiB cap (exit 6) rather than I/O (exit 2).
core::Result<LoadedFile> LoadFile(const std::string& path, bool* too_large,
                            core::PathFrom from = core::PathFrom::kUser);

}  // namespace ampoule::verify
