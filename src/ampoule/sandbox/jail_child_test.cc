// Fault injection into the jail's set-up: each step of the child, failed in
// turn, must come back as one clean error naming that step, with the child
// reaped and nothing left running; then the same plan with no fault runs.
#include "ampoule/sandbox/jail_child.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "ampoule/sandbox/jail_launch.h"
#include "ampoule/sandbox/jail_testing.h"
#include "ampoule/sandbox/seccomp_policy.h"

namespace ampoule {
namespace {

class JailChildTest : public testing::JailFixture {};

// Launches the probe's "exit 7" with the plan SpawnJailed would make, failing
// at `fail_at`; returns the error, or "ran: <status>" when nothing failed.
std::string LaunchFailingAt(uint32_t fail_at, bool jailed) {
  core::UniqueFd exe = testing::HelperMemfd("jail_probe");
  int p[2];
  if (!exe.valid() || pipe2(p, O_CLOEXEC) != 0) return "set-up failed";
  core::UniqueFd out_read(p[0]), out_write(p[1]);
  const int fds[] = {out_read.get(), out_write.get(), out_write.get()};
  core::Result<SeccompProgram> filter = CompileSeccompFilter(SeccompStage::kLaunch, 3);
  if (!filter.ok()) return filter.message();
  sock_fprog fprog = filter->fprog();
  char arg0[] = "jail_probe", arg1[] = "exit", arg2[] = "7";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  char* envp[] = {nullptr};
  const ChildLimit limits[] = {{RLIMIT_NPROC, 1}, {RLIMIT_FSIZE, 0}};
  ChildPlan plan;
  plan.jailed = jailed;
  plan.exec_fd = exe.get();
  plan.child_fds = fds;
  plan.child_fd_count = 3;
  plan.argv = argv;
  plan.envp = envp;
  plan.limits = limits;
  plan.limit_count = 2;
  plan.seccomp = jailed ? &fprog : nullptr;
  plan.fail_at = fail_at;
  core::Result<LaunchedChild> child = LaunchJailChild(plan);
  if (!child.ok()) return child.message();
  siginfo_t info = {};
  syscall(SYS_waitid, P_PIDFD, child->pidfd.get(), &info, WEXITED, nullptr);
  return "ran: " + std::to_string(info.si_status);
}

void ExpectEveryStepFailsCleanly(bool jailed) {
  const std::string eio = strerror(EIO);
  for (uint32_t step = 0; step < kChildStepCount; ++step) {
    const std::string expected = std::string("jail: ") +
                                 ChildStepDescription(static_cast<ChildStep>(step)) +
                                 " failed: " + eio;
    const std::string message = LaunchFailingAt(step, jailed);
    const bool namespace_step = step >= static_cast<uint32_t>(ChildStep::kMountPrivate) &&
                                step <= static_cast<uint32_t>(ChildStep::kIds);
    if (!jailed && namespace_step) {
      EXPECT_EQ(message, "ran: 7") << "step " << step << " does not run without a jail";
    } else {
      EXPECT_EQ(message.rfind(expected, 0), 0u) << "step " << step << ": " << message;
    }
    // The failed child was reaped: no zombie, no survivor.
    EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD);
  }
  EXPECT_EQ(LaunchFailingAt(kChildStepCount, jailed), "ran: 7");
}

TEST_F(JailChildTest, EveryStepFailsWithOneCleanError) { ExpectEveryStepFailsCleanly(true); }

TEST(JailChildNoJailTest, EveryStepFailsWithOneCleanError) { ExpectEveryStepFailsCleanly(false); }

}  // namespace
}  // namespace ampoule
