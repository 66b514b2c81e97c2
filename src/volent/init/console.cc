#include "volent/init/console.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "core/errno_text.h"
#include "core/write_all.h"

namespace volent::init {

void Say(std::string_view line) {
  std::string out = "volent-init: ";
  out.append(line);
  out.push_back('\n');
  // A short write to a serial console is carried on; an error is dropped.
  (void)core::WriteAll(STDOUT_FILENO, out);
}

void SayError(std::string_view what, int errnum) {
  std::string line = "error: ";
  line.append(what);
  line.append(": ");
  line.append(core::ErrnoText(errnum));
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
