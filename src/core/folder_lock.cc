#include "core/errno_text.h"
#include "core/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace core {

namespace {

constexpr size_t kMaxHolderBytes = 512;

// What the holder's line says, printable, bounded; "" when it says nothing.
std::string HolderLine(int fd) {
  char buffer[kMaxHolderBytes];
  ssize_t n = pread(fd, buffer, sizeof buffer, 0);
  std::string line;
  for (ssize_t i = 0; i < n && buffer[i] != '\n'; ++i) {
    unsigned char c = static_cast<unsigned char>(buffer[i]);
    line += c >= 0x20 && c != 0x7F ? static_cast<char>(c) : '?';
  }
  return line;
}

}  // namespace

Result<std::unique_ptr<FolderLock>> FolderLock::Take(const std::string& dir, const std::string& file,
                                                     const std::string& holder) {
  const std::string path = dir + "/" + file;
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
  if (fd < 0 && errno == ELOOP) {
    return Error{"refusing the lock file " + path + ": it is a symbolic link (remove it; the lock file is made anew)"};
  }
  if (fd < 0) return Error{"cannot open the lock file " + path + ": " + core::ErrnoText()};
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Error{"the lock file " + path + " is not a regular file (remove it; it is made anew)"};
  }
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    const int error = errno;
    std::string who = error == EWOULDBLOCK ? HolderLine(fd) : "";
    close(fd);
    if (error == EWOULDBLOCK) {
      return Error{dir + " is in use by " + (who.empty() ? std::string("another process") : who) + " (it holds " +
                       path + ")",
                   ErrorKind::kConflict};
    }
    return Error{"cannot lock " + path + ": " + core::ErrnoText(error)};
  }
  const std::string line = holder + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    const int error = errno;
    close(fd);
    return Error{"cannot write the lock file " + path + ": " + core::ErrnoText(error)};
  }
  return std::unique_ptr<FolderLock>(new FolderLock(fd));
}

// Closing the descriptor releases the lock; the file stays (removing it
// would race with a taker that just opened it).
FolderLock::~FolderLock() { close(fd_); }

}  // namespace core
