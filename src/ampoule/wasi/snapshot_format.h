// The bytes of a snapshot: an instance's guest-visible state after start-up
// (see snapshot.h for what is captured and when), and how it is read back.
//
// Format version 1. Integers are little-endian; a string is a u32 length
// followed by that many bytes.
//
//   magic      8 bytes   "AMPSNAP\0"
//   version    u32       kSnapshotFormatVersion
//   module     32 bytes  SHA-256 of the module's wasm bytes
//   clock      u64 fuel, u64 slept_ns   what start-up used and slept: the
//                                       restored run's clock continues there
//   env        u32 n, n strings         the environment at start-up
//   preopens   u32 n, n strings         the preopened guest paths, in order
//   memories   u32 n, per memory: u32 pages, u32 run count, then per run
//                u64 offset, u64 length, `length` bytes. Runs are non-empty,
//                in increasing order, do not touch or overlap, and lie within
//                the memory; every byte outside them is zero.
//   globals    u32 n, per mutable global: u32 global index, u64 bits
//                (Value::bits; a funcref is a function index + 1, 0 = null)
//   tables     u32 n, per table: u32 size, then `size` u32 elements
//                (function index + 1, 0 = null)
//   elem drops u32 n, n bytes: 1 = the element segment is dropped (empty)
//   data drops u32 n, n bytes: 1 = the data segment is dropped
// Nothing may follow. Function indices are in the instance's function index
// space (imports first).
//
// The same state always serialises to the same bytes. Parsing checks the
// structure only (it never trusts a count to size an allocation beyond what
// the remaining bytes could hold); whether the state fits a module is for
// RestoreSnapshot (snapshot.cc) to check.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"

namespace ampoule::wasi {

constexpr uint32_t kSnapshotFormatVersion = 1;
using Sha256Digest = std::array<uint8_t, 32>;

struct SnapshotMemoryRun {
  uint64_t offset = 0;
  std::span<const uint8_t> bytes;  // points into the parsed or live bytes
};

struct SnapshotMemory {
  uint32_t pages = 0;
  std::vector<SnapshotMemoryRun> runs;
};

struct SnapshotGlobal {
  uint32_t index = 0;
  uint64_t bits = 0;
};

struct SnapshotImage {
  Sha256Digest module_sha256{};
  uint64_t fuel = 0;
  uint64_t slept_ns = 0;
  std::vector<std::string> env;
  std::vector<std::string> preopens;
  std::vector<SnapshotMemory> memories;
  std::vector<SnapshotGlobal> globals;
  std::vector<std::vector<uint32_t>> tables;
  std::vector<uint8_t> elem_dropped;
  std::vector<uint8_t> data_dropped;
};

// The snapshot's bytes. The memory runs' bytes are copied out of wherever
// they point.
std::vector<uint8_t> SerializeSnapshot(const SnapshotImage& image);

// Reads `bytes` (untrusted). The image's memory runs point into `bytes`,
// which must outlive it. Errors say what is wrong and where: a wrong magic
// number or version, truncation, a malformed run list, trailing bytes.
core::Result<SnapshotImage> ParseSnapshot(std::span<const uint8_t> bytes);

}  // namespace ampoule::wasi
