#include "receipt/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ampoule::receipt {
namespace {

Error IoError(const std::string& path, const char* action) {
  return Error{"cannot " + std::string(action) + " " + path + ": " + std::strerror(errno)};
}

Error TooLarge(const std::string& path, size_t limit, bool* over_limit) {
  if (over_limit) *over_limit = true;
  return Error{path + " is larger than the " + std::to_string(limit) + "-byte limit"};
}

}  // namespace

Result<std::string> ReadFdCapped(int fd, const std::string& path, size_t limit, bool* over_limit) {
  if (over_limit) *over_limit = false;
  struct stat st;
  if (fstat(fd, &st) != 0) return IoError(path, "stat");
  if (S_ISDIR(st.st_mode)) return Error{"cannot read " + path + ": it is a directory"};
  // A regular file reports its size up front; other kinds are counted as read.
  if (S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) > limit) {
    return TooLarge(path, limit, over_limit);
  }
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(path, "read");
    if (n == 0) break;
    if (data.size() + static_cast<size_t>(n) > limit) return TooLarge(path, limit, over_limit);
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

Result<std::string> ReadFileCapped(const std::string& path, size_t limit, bool* over_limit) {
  if (over_limit) *over_limit = false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path, "open");
  Result<std::string> data = ReadFdCapped(fd, path, limit, over_limit);
  close(fd);
  return data;
}

}  // namespace ampoule::receipt
