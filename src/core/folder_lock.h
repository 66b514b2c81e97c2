// An exclusive lock on a folder that one process at a time may change (the
// node's data folder): flock(2) on a lock file inside it, held for as long
// as the FolderLock lives, released by the kernel when the holder exits,
// however it exits. The lock file holds a line saying who holds it, so a
// refused taker can name the holder.
//
// The lock file is opened O_NOFOLLOW | O_CLOEXEC: a link swapped in for it is
// refused, and a program the holder starts does not inherit the lock.
// Advisory: only takers that ask for the lock are kept out.
//
// Thread-compatible: one FolderLock per holder.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"

namespace core {

class FolderLock {
 public:
  // Takes the lock on `dir` (the file `dir`/`file`, made mode 0600 if
  // missing) without waiting, and writes `holder` (e.g. "volent node, pid
  // 4711") into it. Errors: kConflict when another holder has it (the
  // message names that holder, as its line says), else what failed.
  static Result<std::unique_ptr<FolderLock>> Take(const std::string& dir, const std::string& file,
                                                  const std::string& holder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  explicit FolderLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace core
