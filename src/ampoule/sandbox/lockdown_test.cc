// LockDownEngine: the second stage takes away exec and executable memory
// and keeps what a running engine needs. Runs tests/jail/lockdown_probe.cc
// (static, linked with this library) inside the jail.
#include "ampoule/sandbox/lockdown.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "ampoule/sandbox/jail_testing.h"

namespace ampoule {
namespace {

class LockDownTest : public testing::JailFixture {
 protected:
  void SetUp() override {
    testing::JailFixture::SetUp();
    if (IsSkipped()) return;
    if (access(testing::HelperPath("jail_lockdown_probe").c_str(), X_OK) != 0)
      GTEST_SKIP() << "no static lock-down probe (tests/jail/CMakeLists.txt builds it)";
  }
  static testing::ProbeRun Run(const char* lock, const char* action, JailOptions options = {}) {
    return testing::RunProbe("jail_lockdown_probe", {lock, action}, options);
  }
  static bool KilledBySeccomp(const testing::ProbeRun& run) {
    return run.exit && !run.exit->exited && run.exit->signal == SIGSYS;
  }
};

TEST_F(LockDownTest, ALockedEngineStillAllocatesAndWrites) {
  testing::ProbeRun run = Run("lock", "ok");
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_EQ(run.exit->Describe(), "exited with status 0");
  EXPECT_EQ(run.output, "locked\nRESULT ok ok\n");
}

TEST_F(LockDownTest, ExecIsAllowedBeforeAndKillsAfter) {
  // The launch filter lets execveat reach the kernel for descriptor 3 (the
  // one the jail started the program from); a pipe is not executable.
  testing::ProbeRun before = Run("nolock", "exec-fd");
  ASSERT_TRUE(before.exit) << before.spawn_error;
  EXPECT_EQ(before.output, "RESULT exec-fd failed: Permission denied\n");
  testing::ProbeRun after = Run("lock", "exec-fd");
  EXPECT_TRUE(KilledBySeccomp(after)) << after.output;
  EXPECT_EQ(after.output, "locked\n");
}

TEST_F(LockDownTest, ExecutableMemoryIsAllowedBeforeAndKillsAfter) {
  testing::ProbeRun before = Run("nolock", "mmap-exec");
  EXPECT_EQ(before.output, "RESULT mmap-exec ok\n");
  EXPECT_TRUE(KilledBySeccomp(Run("lock", "mmap-exec")));
  EXPECT_TRUE(KilledBySeccomp(Run("lock", "mprotect-exec")));
}

TEST_F(LockDownTest, TheEngineCannotMakeItselfDumpableAgain) {
  EXPECT_TRUE(KilledBySeccomp(Run("lock", "dumpable")));
}

TEST_F(LockDownTest, WorksWithoutAJailToo) {
  JailOptions options;
  options.insecure_no_jail = true;
  testing::ProbeRun run = Run("lock", "ok", options);
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_EQ(run.output, "locked\nRESULT ok ok\n");
  EXPECT_TRUE(KilledBySeccomp(Run("lock", "mmap-exec", options)));
}

}  // namespace
}  // namespace ampoule
