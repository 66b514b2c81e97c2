// Reading a kernel file (format: kernel_format.h; contents: kernel_manifest.h).
//
// A Kernel maps the file read-only once and hands out entries as views into
// the mapping, so the engine can run python.wasm or restore a snapshot from
// the kernel without copying it. Opening from a descriptor needs no
// filesystem access at all: the jailed engine gets the kernel as fd 3.
//
// What is checked when:
//   on open         the whole layout (kernel_format.h), then `manifest.json`:
//                   its SHA-256, its JSON, its format version, and that its
//                   entry list and engine digest agree with the table. The
//                   kernel must hold `manifest.json` and `engine`.
//   on first Entry  that entry's SHA-256 against the table; the verdict is
//                   kept, so each entry is hashed at most once.
//   digest()        the SHA-256 of the whole file, computed on first call.
// Entries are checked lazily because a run touches only its own runtime's
// entries: a Python run never needs js.wasm hashed, and hashing everything
// at open would add the time to read the whole kernel to every run's start.
// VerifyAll() checks every entry at once (`ampoule kernel info` does).
//
// Lifetime: spans returned by Entry() and bytes() live as long as the Kernel.
// The file must not be truncated while mapped (the engine's copy is a
// descriptor the host opened; see docs/kernel.md).
//
// Thread safety: a Kernel may be used from several threads; the lazy checks
// are idempotent and their verdicts are stored atomically.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/kernel/kernel_format.h"
#include "ampoule/kernel/kernel_manifest.h"
#include "core/result.h"

namespace ampoule::kernel {

class Kernel {
 public:
  // Opens and maps the kernel at `path`. Errors: the file cannot be opened,
  // is not a regular file, is empty or over kMaxKernelFileBytes, or fails a
  // check listed above; messages name the path.
  static core::Result<std::unique_ptr<Kernel>> Open(const std::string& path);
  // As Open, from a descriptor open for reading (not taken over: the caller
  // may close it afterwards, the mapping stays). `label` names it in errors.
  static core::Result<std::unique_ptr<Kernel>> OpenFd(int fd, std::string_view label = "kernel descriptor");
  // As Open, from bytes in memory (tests, fuzzing, a kernel just packed).
  static core::Result<std::unique_ptr<Kernel>> FromBytes(std::vector<uint8_t> bytes,
                                                   std::string_view label = "kernel bytes");

  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // The kernel digest: lowercase hex SHA-256 of the whole file.
  const std::string& digest() const;
  uint64_t size() const { return bytes_.size(); }
  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::string& label() const { return label_; }

  // The table, sorted by name.
  const std::vector<EntryRecord>& entries() const { return records_; }
  bool Has(std::string_view name) const { return Find(name) >= 0; }

  // The bytes of entry `name`. Errors: no such entry; its data does not
  // match the SHA-256 in the table (the file is damaged).
  core::Result<std::span<const uint8_t>> Entry(std::string_view name) const;

  // Checks every entry's SHA-256; the first mismatch is the error.
  core::Status VerifyAll() const;

  // Takes `sha256_hex` as the whole file's digest without hashing it, and
  // every entry as matching its table (the whole-file digest covers them).
  // For a caller who hashed this same file before: `ampoule run` keeps the
  // digest of a kernel file it has hashed, keyed by the file's identity
  // (src/ampoule/run/kernel_digest_cache.h), and hands it to the engine it starts,
  // so a run's start does not re-read the whole kernel. Call before any
  // other use of the Kernel.
  void AcceptDigest(std::string_view sha256_hex);

  const KernelManifest& manifest() const { return manifest_; }

 private:
  Kernel() = default;
  static core::Result<std::unique_ptr<Kernel>> Finish(std::unique_ptr<Kernel> kernel);
  int Find(std::string_view name) const;
  core::Result<std::span<const uint8_t>> EntryAt(size_t index) const;

  std::string label_;
  std::span<const uint8_t> bytes_;
  void* map_ = nullptr;  // munmap'ed on destruction, when the bytes are mapped
  size_t map_size_ = 0;
  std::vector<uint8_t> owned_;  // FromBytes only
  std::vector<EntryRecord> records_;
  // Per entry: 0 not checked yet, 1 matches, 2 does not match.
  std::unique_ptr<std::atomic<uint8_t>[]> checked_;
  KernelManifest manifest_;
  mutable std::once_flag digest_once_;
  mutable std::string digest_;
};

}  // namespace ampoule::kernel
