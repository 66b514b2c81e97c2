// Writing a whole buffer to a descriptor: the one loop for it.
//
// Header-only (see core/fault_injection.h); thread-safe as write(2) is.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "core/fault_injection.h"

namespace core {

// Writes every byte of `bytes` to `fd`, retrying a write interrupted by a
// signal (EINTR) and continuing after a short write. Returns true when all
// are written; false, with errno set by the write that failed (EIO for a
// write that wrote nothing), otherwise. Some bytes may have been written
// then. A non-blocking descriptor that would block fails with EAGAIN.
[[nodiscard]] inline bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t size = fault::Fail(fault::Op::kShortWrite) ? 1 : bytes.size();
    const ssize_t n = fault::Fail(fault::Op::kWrite) ? -1 : ::write(fd, bytes.data(), size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace core
