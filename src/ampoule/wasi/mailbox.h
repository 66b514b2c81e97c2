// The mailbox: the in-memory directory trees a run starts with.
//
// A run's file input is built here before the run starts (by the CLI or an
// embedder) and never changes while the guest runs: the guest works on a
// copy-on-write view of it (vfs.h), so what a run started from is exactly
// what the request says. Each top-level directory is a
// *preopen*: the guest sees it under its guest path (for example "/input")
// as one of the descriptors 3, 4, ... in the order the preopens were added.
//
// Entries of a directory are kept sorted by their name bytes, which makes
// directory listings identical on every host. Inode numbers are assigned in
// creation order, starting at 1.
//
// Limits (untrusted input): names of at most kMaxNameBytes bytes without '/'
// or NUL and not "." or ".."; at most kMaxMailboxEntries nodes; files of at
// most kMaxMailboxFileBytes and kMaxMailboxTotalBytes in all.
//
// Thread safety: building is single-threaded; a finished Mailbox is
// immutable and may be read from any number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ampoule::wasi {

constexpr size_t kMaxNameBytes = 255;
constexpr size_t kMaxPathBytes = 4096;
constexpr size_t kMaxMailboxEntries = 100'000;
constexpr uint64_t kMaxMailboxFileBytes = uint64_t(64) << 20;    // 64 MiB
constexpr uint64_t kMaxMailboxTotalBytes = uint64_t(256) << 20;  // 256 MiB

struct MailboxNode {
  enum class Kind : uint8_t { kDirectory, kFile };
  Kind kind = Kind::kDirectory;
  uint64_t inode = 0;
  MailboxNode* parent = nullptr;  // null for a preopen root
  std::vector<uint8_t> contents;  // kFile only
  std::map<std::string, std::unique_ptr<MailboxNode>, std::less<>> entries;  // kDirectory only

  bool is_dir() const { return kind == Kind::kDirectory; }
};

struct Preopen {
  std::string guest_path;  // as the guest sees it, e.g. "/input"
  std::unique_ptr<MailboxNode> root;
  bool read_only = false;  // the guest may not change this tree (EROFS), even in memory
};

class Mailbox {
 public:
  Mailbox() = default;
  Mailbox(Mailbox&&) = default;
  Mailbox& operator=(Mailbox&&) = default;

  // Adds an empty preopened directory the guest will see as `guest_path`.
  // `read_only` trees refuse every change with EROFS. Errors: an empty
  // path, a NUL byte, a path over kMaxPathBytes, or a guest path already
  // added.
  core::Status AddPreopen(std::string_view guest_path, bool read_only = false);

  // Adds a file (and any missing parent directories) at `relative_path`
  // ("a/b.txt") under the preopen `guest_path`. Errors: unknown preopen, a
  // malformed path component, an existing entry of that name, a limit
  // exceeded.
  core::Status AddFile(std::string_view guest_path, std::string_view relative_path,
                 std::vector<uint8_t> contents);
  // Adds a directory (and any missing parents); an existing directory is not
  // an error.
  core::Status AddDirectory(std::string_view guest_path, std::string_view relative_path);

  const std::vector<Preopen>& preopens() const { return preopens_; }
  uint64_t total_file_bytes() const { return total_bytes_; }
  size_t entry_count() const { return next_inode_ - 1; }

 private:
  core::Result<MailboxNode*> FindPreopen(std::string_view guest_path);
  // Walks `relative_path`, creating directories; returns the directory that
  // should hold the last component, and that component in *leaf.
  core::Result<MailboxNode*> MakeParents(MailboxNode* root, std::string_view relative_path,
                                   std::string_view* leaf);
  core::Result<std::unique_ptr<MailboxNode>> NewNode(MailboxNode::Kind kind, MailboxNode* parent);

  std::vector<Preopen> preopens_;
  uint64_t next_inode_ = 1;
  uint64_t total_bytes_ = 0;
};

// True if `name` is a valid single path component.
bool IsValidMailboxName(std::string_view name);

}  // namespace ampoule::wasi
