#include "volent/init/supervisor.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "volent/init/children.h"
#include "volent/init/console.h"

namespace volent::init {
namespace {

constexpr long kFirstBackoffMs = 1000;
constexpr long kMaxBackoffMs = 30000;
constexpr long kHealthyRunMs = 60000;  // a run this long resets the backoff

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped (status " + std::to_string(status) + ")";
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

Supervisor::Supervisor(std::vector<std::string> argv, std::vector<std::string> env, bool (*before_exec)())
    : argv_(std::move(argv)), env_(std::move(env)), before_exec_(before_exec) {}

void Supervisor::Tick(long now_ms) {
  if (pid_ > 0 || due_ms_ < 0 || now_ms < due_ms_) return;
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> argv = Pointers(argv_);
  std::vector<char*> env = Pointers(env_);
  pid_t pid = fork();
  if (pid < 0) {
    SayError("fork for " + argv_[0], errno);
    due_ms_ = now_ms + backoff_ms_;
    return;
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setsid();
    if (before_exec_ && !before_exec_()) _exit(126);
    execve(argv[0], argv.data(), env.data());
    _exit(127);
  }
  pid_ = pid;
  started_ms_ = now_ms;
  ++starts_;
  Say("started " + argv_[0] + " (pid " + std::to_string(pid) + (starts_ > 1 ? ", start " + std::to_string(starts_) : "") + ")");
}

long Supervisor::NextDueMs() const { return pid_ > 0 || due_ms_ < 0 ? -1 : due_ms_; }

void Supervisor::Exited(pid_t pid, int status, long now_ms) {
  if (pid != pid_ || pid_ <= 0) return;
  pid_ = 0;
  if (due_ms_ < 0) return;
  if (now_ms - started_ms_ >= kHealthyRunMs) backoff_ms_ = kFirstBackoffMs;
  Say(argv_[0] + " " + Describe(status) + (WIFEXITED(status) && WEXITSTATUS(status) == 127   ? " (could not be started)"
       : WIFEXITED(status) && WEXITSTATUS(status) == 126 ? " (could not take its user: not started)"
                                                         : "") +
      "; starting it again in " + std::to_string(backoff_ms_ / 1000) + " s");
  due_ms_ = now_ms + backoff_ms_;
  backoff_ms_ = std::min(backoff_ms_ * 2, kMaxBackoffMs);
}

void Supervisor::Stop(long grace_ms) {
  due_ms_ = -1;
  if (pid_ <= 0) return;
  const pid_t pid = pid_;
  kill(pid, SIGTERM);
  const long deadline = NowMs() + grace_ms;
  bool killed = false;
  while (pid_ > 0) {
    long now = NowMs();
    if (!killed && now >= deadline) {
      Say(argv_[0] + " did not stop within " + std::to_string(grace_ms / 1000) + " s; killing it");
      kill(pid, SIGKILL);
      killed = true;
    }
    WaitForSignal(killed ? 1000 : std::max(1L, deadline - now));
    ReapChildren([&](pid_t p, int status) {
      if (p == pid) {
        pid_ = 0;
        Say(argv_[0] + " " + Describe(status));
      }
    });
  }
}

}  // namespace volent::init
