#include "volent/init/console.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <string>

namespace volent::init {

void Say(std::string_view line) {
  std::string out = "volent-init: ";
  out.append(line);
  out.push_back('\n');
  // A short write to a serial console is retried; an error is dropped.
  const char* p = out.data();
  size_t left = out.size();
  while (left > 0) {
    ssize_t n = write(STDOUT_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void SayError(std::string_view what, int errnum) {
  std::string line = "error: ";
  line.append(what);
  line.append(": ");
  line.append(strerror(errnum));
  Say(line);
}

bool AttachConsole() {
  if (fcntl(STDOUT_FILENO, F_GETFD) != -1) return true;
  int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  for (int target = 0; target <= 2; ++target) dup2(fd, target);  // dup2 clears O_CLOEXEC
  if (fd > 2) close(fd);
  return true;
}

}  // namespace volent::init
