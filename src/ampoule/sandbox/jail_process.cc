// A running jailed process: reaping, killing, waiting with a deadline.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <string>

#include "core/errno_text.h"

#include "ampoule/sandbox/jail.h"

namespace ampoule {
namespace {

using std::chrono::microseconds;

microseconds ToMicros(const timeval& tv) {
  return microseconds(int64_t{tv.tv_sec} * 1000000 + tv.tv_usec);
}

JailExit ExitFrom(const siginfo_t& info, const rusage& usage) {
  JailExit exit;
  exit.exited = info.si_code == CLD_EXITED;
  (exit.exited ? exit.exit_code : exit.signal) = info.si_status;
  exit.max_rss_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
  exit.cpu_time = ToMicros(usage.ru_utime) + ToMicros(usage.ru_stime);
  return exit;
}

}  // namespace

std::string JailExit::Describe() const {
  if (timed_out) return "killed by the host at its deadline";
  if (cpu_limit_hit) return "killed at the CPU time limit";
  if (exited) return "exited with status " + std::to_string(exit_code);
  const char* name = sigabbrev_np(signal);
  std::string text = "killed by signal " + std::to_string(signal) + " (SIG" +
                     (name ? name : "?") + ")";
  if (signal == SIGSYS) text += ": it made a system call the jail forbids";
  if (signal == SIGXFSZ) text += ": it tried to write a file";
  return text;
}

JailedProcess::JailedProcess(pid_t pid, core::UniqueFd pidfd, bool jailed, uint64_t cpu_seconds)
    : pid_(pid), pidfd_(std::move(pidfd)), jailed_(jailed), cpu_seconds_(cpu_seconds) {}

JailedProcess::JailedProcess(JailedProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pidfd_(std::move(other.pidfd_)),
      jailed_(other.jailed_),
      cpu_seconds_(other.cpu_seconds_),
      killed_(other.killed_),
      exit_(std::move(other.exit_)) {}

JailedProcess& JailedProcess::operator=(JailedProcess&& other) noexcept {
  if (this != &other) {
    KillAndReapIfRunning();
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::move(other.pidfd_);
    jailed_ = other.jailed_;
    cpu_seconds_ = other.cpu_seconds_;
    killed_ = other.killed_;
    exit_ = std::move(other.exit_);
  }
  return *this;
}

JailedProcess::~JailedProcess() { KillAndReapIfRunning(); }

void JailedProcess::KillAndReapIfRunning() {
  if (!pidfd_.valid() || exit_.has_value()) return;
  (void)Kill();
  siginfo_t info;
  syscall(SYS_waitid, P_PIDFD, pidfd_.get(), &info, WEXITED, nullptr);
}

core::Result<std::optional<JailExit>> JailedProcess::TryReap() {
  if (exit_.has_value()) return exit_;
  if (!pidfd_.valid()) return core::Error{"jail: this process handle is empty (moved from)"};
  siginfo_t info = {};
  rusage usage = {};
  if (syscall(SYS_waitid, P_PIDFD, pidfd_.get(), &info, WEXITED | WNOHANG, &usage) != 0) {
    if (errno == EINTR) return std::optional<JailExit>();
    return core::Error{std::string("jail: waitid: ") + core::ErrnoText()};
  }
  if (info.si_pid == 0) return std::optional<JailExit>();  // still running
  JailExit exit = ExitFrom(info, usage);
  const bool sigkill = !exit.exited && exit.signal == SIGKILL;
  exit.timed_out = killed_ && sigkill;
  // RLIMIT_CPU's hard limit ends the process with SIGKILL. The kernel
  // checks the limit against CPU time sampled at timer ticks, which a busy
  // machine over-counts (874 ms of precise time at a 1 s limit was seen), so
  // half the limit in the precise rusage counts as reaching it. The only
  // other sender of SIGKILL to a jail, the OOM killer, could be mistaken for
  // it when the process had used that much CPU.
  exit.cpu_limit_hit = !exit.timed_out && sigkill &&
                       exit.cpu_time * 2 >= std::chrono::seconds(cpu_seconds_);
  exit_ = exit;
  return exit_;
}

core::Status JailedProcess::Kill() {
  if (exit_.has_value() || !pidfd_.valid()) return core::Status::Ok();
  killed_ = true;
  if (syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0) != 0 && errno != ESRCH)
    return core::Error{std::string("jail: pidfd_send_signal: ") + core::ErrnoText()};
  // Without a PID namespace its descendants survive it; they share its
  // process group (it made a session of its own) unless they left it.
  if (!jailed_) kill(-pid_, SIGKILL);
  return core::Status::Ok();
}

core::Result<JailExit> WaitJailed(JailedProcess& process,
                            std::optional<std::chrono::steady_clock::time_point> deadline) {
  for (;;) {
    core::Result<std::optional<JailExit>> reaped = process.TryReap();
    if (!reaped.ok()) return reaped.error();
    if (reaped->has_value()) return **reaped;
    int timeout_ms = -1;
    if (deadline) {
      const auto left = *deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) {
        CORE_RETURN_IF_ERROR(process.Kill());
        deadline.reset();
        continue;
      }
      // Round up so the wake-up is never early.
      const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
      timeout_ms = static_cast<int>(std::min<int64_t>(ms, INT_MAX));
    }
    pollfd pfd{process.pidfd(), POLLIN, 0};
    if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
      return core::Error{std::string("jail: poll: ") + core::ErrnoText()};
  }
}

}  // namespace ampoule
