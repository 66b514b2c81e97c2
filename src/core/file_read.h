// The one safe file reader: every file a check rests on is read through it,
// once, under a size cap, and the bytes it returns are the bytes that get
// hashed and used (docs/threat-model.md, "One snapshot of every input").
//
// Opening never blocks: the path is opened with O_NONBLOCK, so a FIFO with
// no writer or a device cannot hang the caller in open(). What may be read
// depends on who named the path:
//   - a person on the command line (PathFrom::kUser): a regular file, or a
//     pipe, FIFO or character device (process substitution, /dev/stdin). A
//     stream is read while data keeps coming: nothing for `idle_ms` (a FIFO
//     no writer ever opens, a terminal) is an error, and an endless device
//     stops at the cap;
//   - an untrusted document or request (PathFrom::kUntrusted: an agent's
//     draft, an MCP or HTTP request): a regular file only.
// "Too large" has its own exit code (docs/cli.md), so the cap is reported
// apart from other I/O errors.
//
// Thread-safe: no state.
#pragma once

#include <cstddef>
#include <string>

#include "core/result.h"

namespace core {

// The cap on any receipt, program, input or output file: 64 MiB.
inline constexpr size_t kMaxFileBytes = size_t{64} << 20;

// How long a pipe or device may stay silent before the read gives up.
inline constexpr int kDefaultPipeIdleMs = 10'000;

enum class PathFrom {
  kUser,       // named on the command line by the person running the tool
  kUntrusted,  // named by an untrusted document: regular files only
};

struct ReadRules {
  PathFrom from = PathFrom::kUser;
  // Refuse a file that its group or others may write (as OpenSSH does for
  // authorized_keys): for files that decide trust (policies, trusted keys),
  // where anyone who can write the file can change the decision.
  bool refuse_writable_by_others = false;
  // Refuse a file owned by anyone but this process's user or root: its
  // owner may change its mode and content whatever the mode says now.
  bool refuse_foreign_owner = false;
  // Refuse a symbolic link as the path's last component (O_NOFOLLOW): a
  // link swapped in for a trusted file would make the reader trust the
  // file it points to, which the checks above never looked at.
  bool refuse_symlink = false;
  int pipe_idle_ms = kDefaultPipeIdleMs;
};

// Reads the whole of `path` into memory under `rules`. Returns the bytes, or
// an error if the file cannot be opened or read, is of a kind `rules` does
// not allow, or holds more than `limit` bytes. When the error is the size
// cap, `*over_limit` is set to true (if given); for any other outcome it is
// set to false. Never reads more than `limit + 1` bytes, so an endless device
// cannot exhaust memory.
Result<std::string> ReadFileCapped(const std::string& path, size_t limit = kMaxFileBytes,
                                   bool* over_limit = nullptr, const ReadRules& rules = {});

// As ReadFileCapped, from an open descriptor (read from its current offset
// to the end; not closed). `path` only names the file in errors. A
// non-blocking stream is waited on with poll() for at most `rules.pipe_idle_ms`
// between chunks.
Result<std::string> ReadFdCapped(int fd, const std::string& path, size_t limit = kMaxFileBytes,
                                 bool* over_limit = nullptr, const ReadRules& rules = {});

// The rules for a file that decides who may do what (credentials, keys,
// policies): a regular file, not a link, that only this process's user
// (or root) owns and may write.
inline constexpr ReadRules kTrustFileRules{.from = PathFrom::kUntrusted,
                                           .refuse_writable_by_others = true,
                                           .refuse_foreign_owner = true,
                                           .refuse_symlink = true};

// Ok when `dir` is a directory (links followed: the operator names it) that
// is owned by this process's user or root and that neither its group nor
// others may write; else an error naming the folder, what is wrong and the
// chmod or chown that fixes it. For folders holding trust files: whoever may
// write the folder may replace any file in it, whatever the file's mode.
Status CheckTrustFolder(const std::string& dir);

// Opens `path` for reading without blocking (O_NONBLOCK, O_NOCTTY,
// O_CLOEXEC) and checks it is a regular file of at most `limit` bytes: for
// files that are mapped or streamed rather than read whole (kernels).
// Returns the descriptor, which the caller closes.
Result<int> OpenRegularFile(const std::string& path, uint64_t limit, const char* what);

// The lowercase hex SHA-256 of the regular file at `path` (opened as
// OpenRegularFile does), streamed in chunks: for files that are only hashed
// (a kernel, the node's own binary), so memory stays small whatever their
// size. A file that grows past `limit` while it is read is an error.
Result<std::string> Sha256OfRegularFile(const std::string& path, uint64_t limit, const char* what);

}  // namespace core
