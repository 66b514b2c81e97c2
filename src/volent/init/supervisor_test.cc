// The node's supervision, with ordinary programs standing in for the node:
// an exit is noticed and the restart waits its backoff (1 s, then 2 s);
// Stop ends a program that ignores nothing, and nothing restarts after it.
#include "volent/init/supervisor.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "volent/init/children.h"

namespace volent::init {
namespace {

class SupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &saved_);
  }
  void TearDown() override { sigprocmask(SIG_SETMASK, &saved_, nullptr); }

  // Waits (bounded) for `s`'s program to exit and hands the exit to it.
  void WaitExit(Supervisor& s, long now_ms) {
    int status = 0;
    pid_t pid = waitpid(s.pid(), &status, 0);
    ASSERT_GT(pid, 0);
    s.Exited(pid, status, now_ms);
  }

  sigset_t saved_;
};

TEST_F(SupervisorTest, RestartsAfterABackoffThatGrows) {
  Supervisor s({"/bin/sh", "-c", "exit 3"}, {"PATH=/usr/bin:/bin"});
  s.Tick(0);
  ASSERT_GT(s.pid(), 0);
  EXPECT_EQ(s.starts(), 1);
  EXPECT_EQ(s.NextDueMs(), -1);  // running: nothing due
  WaitExit(s, 100);
  EXPECT_EQ(s.pid(), 0);
  EXPECT_EQ(s.NextDueMs(), 1100);
  s.Tick(1099);
  EXPECT_EQ(s.starts(), 1);  // not yet
  s.Tick(1100);
  EXPECT_EQ(s.starts(), 2);
  WaitExit(s, 1200);
  EXPECT_EQ(s.NextDueMs(), 3200);  // the second wait is 2 s
  s.Tick(3200);
  EXPECT_EQ(s.starts(), 3);
  WaitExit(s, 3300);
}

TEST_F(SupervisorTest, ALongRunResetsTheBackoff) {
  Supervisor s({"/bin/sh", "-c", "exit 0"}, {});
  s.Tick(0);
  WaitExit(s, 10);
  s.Tick(1010);
  WaitExit(s, 1020);  // the next wait would be 2 s
  s.Tick(3020);
  WaitExit(s, 3020 + 60000);  // ran a minute: back to 1 s
  EXPECT_EQ(s.NextDueMs(), 3020 + 60000 + 1000);
}

TEST_F(SupervisorTest, StopEndsItAndNothingRestarts) {
  Supervisor s({"/bin/sleep", "30"}, {});
  s.Tick(0);
  ASSERT_GT(s.pid(), 0);
  s.Stop(5000);
  EXPECT_EQ(s.pid(), 0);
  EXPECT_EQ(s.NextDueMs(), -1);
  s.Tick(1000000);
  EXPECT_EQ(s.starts(), 1);
}

TEST_F(SupervisorTest, AProgramThatCannotStartIsRetried) {
  Supervisor s({"/nonexistent/volent", "node"}, {});
  s.Tick(0);
  ASSERT_GT(s.pid(), 0);  // the fork worked; the exec fails in the child with 127
  WaitExit(s, 5);
  EXPECT_EQ(s.NextDueMs(), 1005);
}

// The hook that takes the node's user runs in the child before exec; when it
// fails the program never runs (its side effect, a file, is not made).
TEST_F(SupervisorTest, AFailedBeforeExecNeverRunsTheProgram) {
  char tmpl[] = "/tmp/supervisor-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string marker = dir + "/ran";
  Supervisor s({"/bin/sh", "-c", "touch " + marker}, {}, [] { return false; });
  s.Tick(0);
  ASSERT_GT(s.pid(), 0);
  int status = 0;
  ASSERT_EQ(waitpid(s.pid(), &status, 0), s.pid());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 126) << status;
  EXPECT_NE(::access(marker.c_str(), F_OK), 0);
  s.Exited(s.pid(), status, 5);
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace volent::init
