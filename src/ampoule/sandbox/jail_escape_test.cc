// Escape attempts from inside the jail. Each attempt is a separate jailed
// run of tests/jail/jail_probe.c (the jail allows no fork to isolate them),
// which prints "ATTEMPT <name>" and then how the attempt ended. An attempt
// counts as blocked when the probe says so or when seccomp killed it
// (SIGSYS) right after announcing it. A sentinel process outside, running
// as the jail's outside uid where possible, must survive every attempt.
//
// The second suite turns seccomp off and checks that the namespaces, ids
// and rlimits block the same things on their own.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "ampoule/sandbox/jail.h"
#include "ampoule/sandbox/jail_testing.h"

namespace ampoule {
namespace {

// A process outside the jail that signals would reach if they got out:
// same uid as the jailed process where this test can arrange it.
class Sentinel {
 public:
  Sentinel() {
    pid_ = fork();
    if (pid_ == 0) {
      if (geteuid() == 0 && (setresgid(65534, 65534, 65534) != 0 ||
                             setresuid(65534, 65534, 65534) != 0))
        _exit(1);
      for (;;) pause();
    }
  }
  ~Sentinel() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  bool Alive() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

std::string TestName(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  for (char& c : name) c = isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

// "killed by SIGSYS", "blocked: errno 13 (Permission denied)", or a
// description of what got through.
std::string HowItEnded(const std::string& attempt, const testing::ProbeRun& run, bool* blocked) {
  *blocked = false;
  if (!run.exit) return "did not start: " + run.spawn_error;
  const std::string announced = "ATTEMPT " + attempt + "\n";
  if (!run.exit->exited && run.exit->signal == SIGSYS && run.output == announced) {
    *blocked = true;
    return "killed by SIGSYS (seccomp)";
  }
  const std::string verdict = "RESULT " + attempt + " blocked: ";
  const size_t at = run.output.find(verdict);
  if (run.exit->exited && run.exit->exit_code == 0 && run.output.rfind(announced, 0) == 0 &&
      at != std::string::npos) {
    *blocked = true;
    const size_t start = at + verdict.size() - std::string("blocked: ").size();
    return run.output.substr(start, run.output.find('\n', at) - start);
  }
  return run.exit->Describe() + ", output: " + run.output;
}

void ExpectBlocked(const char* attempt, const JailOptions& options) {
  Sentinel sentinel;
  testing::ProbeRun run = testing::RunProbe("jail_probe", {attempt}, options, std::chrono::seconds(20));
  bool blocked;
  const std::string how = HowItEnded(attempt, run, &blocked);
  std::printf("    %-16s %s\n", attempt, how.c_str());
  EXPECT_TRUE(blocked) << attempt << ": " << how;
  EXPECT_TRUE(sentinel.Alive()) << attempt << " killed a process outside the jail";
}

class JailEscapeTest : public testing::JailFixture,
                       public ::testing::WithParamInterface<const char*> {};

TEST_P(JailEscapeTest, IsBlocked) { ExpectBlocked(GetParam(), {}); }

INSTANTIATE_TEST_SUITE_P(
    Attempts, JailEscapeTest,
    ::testing::Values("socket", "connect", "open-passwd", "open-host", "list-root", "kill-all",
                      "kill-init", "kill-parent", "kill-group", "fork", "fork-bomb", "exec-sh",
                      "memfd-exec", "mount", "unshare", "ptrace", "setns", "bpf", "keyctl",
                      "io_uring", "userfaultfd", "perf_event_open", "chroot", "env", "fds"),
    TestName);

// The same attempts with seccomp off: what the namespaces, the uid switch
// (no capabilities) and RLIMIT_NPROC stop by themselves. (unshare, ptrace,
// keyctl and a plain socket need seccomp: an unprivileged process may make
// a user namespace, trace itself, use its keyring, or open a socket in its
// own empty network namespace.)
class JailWithoutSeccompTest : public testing::JailFixture,
                               public ::testing::WithParamInterface<const char*> {};

TEST_P(JailWithoutSeccompTest, IsBlocked) {
  JailOptions options;
  options.skip_seccomp_for_testing = true;
  ExpectBlocked(GetParam(), options);
}

INSTANTIATE_TEST_SUITE_P(
    Attempts, JailWithoutSeccompTest,
    ::testing::Values("connect", "open-passwd", "open-host", "list-root", "kill-all", "kill-init",
                      "kill-parent", "kill-group", "fork", "fork-bomb", "exec-sh", "mount",
                      "chroot", "env", "fds"),
    TestName);

}  // namespace
}  // namespace ampoule
