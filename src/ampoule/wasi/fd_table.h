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
#include "ampoule/wasi/vfs.h"

namespace ampoule::wasi {

constexpr uint32_t kMaxOpenFds = 1024;

// Rights each kind of descriptor starts with.
namespace rights {
constexpr uint64_t kStdin = abi::kRightFdRead | abi::kRightFdFdstatSetFlags |
                            abi::kRightFdFilestatGet | abi::kRightPollFdReadwrite;
constexpr uint64_t kStdout = abi::kRightFdWrite | abi::kRightFdFdstatSetFlags |
                             abi::kRightFdFilestatGet | abi::kRightPollFdReadwrite;
// Reading a file, and what any descriptor of a file may do.
constexpr uint64_t kFileRead = abi::kRightFdRead | abi::kRightFdSeek | abi::kRightFdTell |
                               abi::kRightFdAdvise | abi::kRightFdFdstatSetFlags |
                               abi::kRightFdFilestatGet | abi::kRightPollFdReadwrite |
                               abi::kRightFdSync | abi::kRightFdFilestatSetTimes;
// What writing adds (wasi-libc asks for exactly these on O_WRONLY).
constexpr uint64_t kFileWrite = abi::kRightFdWrite | abi::kRightFdAllocate |
                                abi::kRightFdFilestatSetSize | abi::kRightFdDatasync;
constexpr uint64_t kFile = kFileRead | kFileWrite;
constexpr uint64_t kDirectory =
    abi::kRightPathOpen | abi::kRightFdReaddir | abi::kRightPathFilestatGet |
    abi::kRightFdFilestatGet | abi::kRightPathReadlink | abi::kRightFdFdstatSetFlags |
    abi::kRightFdSync | abi::kRightFdFilestatSetTimes | abi::kRightPathCreateDirectory |
    abi::kRightPathCreateFile | abi::kRightPathLinkSource | abi::kRightPathLinkTarget |
    abi::kRightPathRenameSource | abi::kRightPathRenameTarget | abi::kRightPathFilestatSetSize |
    abi::kRightPathFilestatSetTimes | abi::kRightPathSymlink | abi::kRightPathRemoveDirectory |
    abi::kRightPathUnlinkFile;
// What a directory lets descriptors opened through it ask for.
constexpr uint64_t kDirectoryInheriting = kDirectory | kFile;
}  // namespace rights

struct FdEntry {
  enum class Kind : uint8_t { kStdin, kStdout, kStderr, kDirectory, kFile };
  Kind kind = Kind::kFile;
  NodeRef node;  // kDirectory and kFile (an unlinked file stays readable)
  std::string preopen_name;           // set for preopened directories
  bool preopen = false;
  uint64_t offset = 0;  // kFile: read and write position
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
