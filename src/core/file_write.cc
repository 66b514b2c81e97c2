#include "core/file_write.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ampoule::core {

Status WriteFileAtomically(const std::string& path, std::string_view bytes, mode_t mode) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid()) + "." + std::to_string(syscall(SYS_gettid));
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return Error{"cannot write '" + path + "': " + strerror(errno)};
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n == 0 ? "no progress" : strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return Error{"cannot write '" + path + "': " + why};
    }
    done += size_t(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = strerror(errno);
    unlink(tmp.c_str());
    return Error{"cannot write '" + path + "': " + why};
  }
  return Status::Ok();
}

}  // namespace ampoule::core
