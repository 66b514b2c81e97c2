#include "volent/init/children.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>

#include "core/errno_text.h"

namespace volent::init {
namespace {

sigset_t HandledSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGTERM, SIGINT}) sigaddset(&set, s);
  return set;
}

}  // namespace

core::Status BlockSignals() {
  sigset_t set = HandledSignals();
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) {
    return core::Error{std::string("sigprocmask: ") + core::ErrnoText()};
  }
  // Only as PID 1: anywhere else (a unit test run as root) it would change the host's Ctrl-Alt-Del.
  if (getpid() == 1) reboot(RB_DISABLE_CAD);
  return core::Status::Ok();
}

int ReapChildren(const std::function<void(pid_t, int)>& exited) {
  int reaped = 0;
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      ++reaped;
      if (exited) exited(pid, status);
    } else if (pid < 0 && errno == EINTR) {
      continue;
    } else {
      return reaped;  // 0: children left but none exited; ECHILD: none at all
    }
  }
}

int WaitForSignal(long timeout_ms) {
  sigset_t set = HandledSignals();
  if (timeout_ms < 0) timeout_ms = 0;
  timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000000};
  int signal = sigtimedwait(&set, nullptr, &timeout);
  return signal > 0 ? signal : 0;  // EAGAIN (timed out) and EINTR: look again
}

long NowMs() {
  timespec now{};
  if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
  return now.tv_sec * 1000L + now.tv_nsec / 1000000;
}

}  // namespace volent::init
