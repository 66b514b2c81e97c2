// The kernel file format, version 1: one file bundling everything that decides
// a run's result (docs/kernel.md). Its SHA-256 is the kernel digest.
//
// Layout (all integers little-endian):
//
//   offset 0   header, 64 bytes
//                magic          8 bytes  "AMPKERNL"
//                version        u32      kKernelFormatVersion (1)
//                entry_count    u32      at most kMaxKernelEntries
//                file_size      u64      the whole file's length in bytes
//                reserved       40 bytes zero
//   offset 64  entry table, entry_count records of 128 bytes, sorted by name
//              (byte order, no duplicates):
//                name           80 bytes the name (1..79 bytes of [A-Za-z0-9._-/],
//                                        '/'-separated components, none empty,
//                                        "." or ".."), then zero bytes
//                offset         u64      where the entry's data starts; a
//                                        multiple of kKernelAlignment
//                size           u64      the data's length in bytes
//                sha256         32 bytes SHA-256 of the data
//   then       each entry's data, in table order, at the first multiple of
//              kKernelAlignment at or after the end of the table (first entry)
//              or of the previous entry's data; gaps are zero bytes; the file
//              ends exactly where the last entry's data ends.
//
// Every valid file is in this canonical form, so a set of entries has exactly
// one encoding: packing is deterministic (no timestamps, no paths, entries
// sorted) and ParseKernelLayout(PackKernel(e)) gives e back. Alignment to the
// page size lets a reader map the file once and hand out entries (a Wasm
// module, a memory snapshot) as pointers into the mapping without copying.
//
// Checking the entries' SHA-256 is not part of parsing the layout: see
// kernel.h for when a Kernel does it.
//
// Thread-safe: no state.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ampoule::kernel {

inline constexpr std::string_view kKernelMagic = "AMPKERNL";
inline constexpr uint32_t kKernelFormatVersion = 1;
inline constexpr size_t kKernelHeaderBytes = 64;
inline constexpr size_t kKernelRecordBytes = 128;
inline constexpr size_t kKernelNameField = 80;  // names are at most 79 bytes
inline constexpr uint64_t kKernelAlignment = 4096;

// Limits on untrusted files: a kernel holds a handful of entries; a file
// claiming more, or larger than this, is refused before anything is read.
inline constexpr uint32_t kMaxKernelEntries = 256;
inline constexpr uint64_t kMaxKernelFileBytes = uint64_t(4) << 30;  // 4 GiB

// One entry to pack. `data` is borrowed for the duration of PackKernel.
struct PackEntry {
  std::string name;
  std::span<const uint8_t> data;
};

// One entry as the table of a parsed file describes it.
struct EntryRecord {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::array<uint8_t, 32> sha256{};
};

// True if `name` may name a kernel entry (see the layout above).
bool IsValidEntryName(std::string_view name);

// Returns the bytes of a kernel file holding `entries` (in any order; the
// file lists them sorted by name). Errors: an invalid or duplicate name, more
// than kMaxKernelEntries entries, a result over kMaxKernelFileBytes.
core::Result<std::vector<uint8_t>> PackKernel(std::span<const PackEntry> entries);

// Checks that `file` is a kernel file in canonical form and returns its
// table. Never reads outside `file`; every malformation (truncation, bad
// magic or version, huge counts, misaligned, overlapping or out-of-range
// entries, unsorted or invalid names, non-zero padding, trailing bytes) is an
// error naming what is wrong and where. Does not check the entries' SHA-256.
core::Result<std::vector<EntryRecord>> ParseKernelLayout(std::span<const uint8_t> file);

}  // namespace ampoule::kernel
