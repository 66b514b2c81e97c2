// SHA-256 of files the verifier is given.
//
// A kernel file can be large and is only ever hashed, so it is streamed;
// every other file (program, inputs, outputs, stdin) is read whole under the
// 64 MiB cap, because a replay needs its bytes.
//
// Thread-safe: no state.
#pragma once

#include <string>

#include "util/result.h"

namespace ampoule::verify {

// Lowercase hex SHA-256 of the file at `path`, read in chunks (no size
// limit). Error naming the path if it cannot be opened or read, or is a
// directory.
Result<std::string> Sha256File(const std::string& path);

// A file read whole under receipt::kMaxFileBytes, with its digest.
struct LoadedFile {
  std::string bytes;
  std::string sha256;  // lowercase hex
};

// Reads `path`. On error, `*too_large` tells whether the cause was the
// 64 MiB cap (SPEC A6 exit 6) rather than I/O (exit 2).
Result<LoadedFile> LoadFile(const std::string& path, bool* too_large);

}  // namespace ampoule::verify
