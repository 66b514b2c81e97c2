#include "volent/init/children.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <string>

namespace volent::init {

ampoule::Status BlockChildSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) {
    return ampoule::Error{std::string("sigprocmask(SIGCHLD): ") + strerror(errno)};
  }
  return ampoule::Status::Ok();
}

int ReapChildren() {
  int reaped = 0;
  for (;;) {
    pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid > 0) {
      ++reaped;
    } else if (pid < 0 && errno == EINTR) {
      continue;
    } else {
      return reaped;  // 0: children left but none exited; ECHILD: none at all
    }
  }
}

void WaitForChild(long timeout_ms) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000000};
  // EAGAIN (timed out) and EINTR both just mean: look again.
  sigtimedwait(&set, nullptr, &timeout);
}

}  // namespace volent::init
