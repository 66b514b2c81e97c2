// The guest's file descriptors: what each number refers to, its position
// and its rights.
//
// Numbers are handed out lowest-free-first, like POSIX, so the numbers a
// guest sees depend only on its own calls. 0, 1 and 2 are stdin, stdout and
// stderr; preopened directories follow from 3 in the order of the request.
// At most kMaxOpenFds descriptors exist at once (more is EMFILE).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampoule/wasi/abi.h"
#include "ampoule/wasi/errno.h"
#include "ampoule/wasi/mailbox.h"

namespace ampoule::wasi {

constexpr uint32_t kMaxOpenFds = 1024;

// Rights each kind of descriptor starts with.
namespace rights {
constexpr uint64_t kStdin = abi::kRightFdRead | abi::kRightFdFdstatSetFlags |
                            abi::kRightFdFilestatGet | abi::kRightPollFdReadwrite;
constexpr uint64_t kStdout = abi::kRightFdWrite | abi::kRightFdFdstatSetFlags |
                             abi::kRightFdFilestatGet | abi::kRightPollFdReadwrite;
constexpr uint64_t kFile = abi::kRightFdRead | abi::kRightFdSeek | abi::kRightFdTell |
                           abi::kRightFdAdvise | abi::kRightFdFdstatSetFlags |
                           abi::kRightFdFilestatGet | abi::kRightPollFdReadwrite;
constexpr uint64_t kDirectory = abi::kRightPathOpen | abi::kRightFdReaddir |
                                abi::kRightPathFilestatGet | abi::kRightFdFilestatGet |
                                abi::kRightPathReadlink | abi::kRightFdFdstatSetFlags;
// Rights whose request in path_open means the guest wants to write.
constexpr uint64_t kWriteIntent = abi::kRightFdWrite | abi::kRightFdAllocate |
                                  abi::kRightFdFilestatSetSize | abi::kRightFdDatasync;
// What a directory lets descriptors opened through it ask for. The write
// rights are listed so that libc passes them through on open(O_WRONLY),
// which path_open then refuses with EROFS, rather than silently opening
// read-only.
constexpr uint64_t kDirectoryInheriting = kDirectory | kFile | kWriteIntent;
}  // namespace rights

struct FdEntry {
  enum class Kind : uint8_t { kStdin, kStdout, kStderr, kDirectory, kFile };
  Kind kind = Kind::kFile;
  const MailboxNode* node = nullptr;  // kDirectory and kFile
  std::string preopen_name;           // set for preopened directories
  bool preopen = false;
  uint64_t offset = 0;  // kFile: read position
  uint16_t fdflags = 0;
  uint64_t rights_base = 0;
  uint64_t rights_inheriting = 0;

  bool is_stdio() const {
    return kind == Kind::kStdin || kind == Kind::kStdout || kind == Kind::kStderr;
  }
};

class FdTable {
 public:
  // The descriptor `fd`, or null if it is not open.
  FdEntry* Get(uint32_t fd);
  // Opens `entry` at the lowest free number; kMfile when kMaxOpenFds are open.
  Errno Insert(FdEntry entry, uint32_t* fd);
  // kBadf if `fd` is not open.
  Errno Close(uint32_t fd);
  // Moves `from` onto `to`, closing what `to` was. Both must be open (kBadf).
  Errno Renumber(uint32_t from, uint32_t to);

 private:
  std::vector<std::optional<FdEntry>> slots_;
};

}  // namespace ampoule::wasi
