// The node's lock-down, in a child process each (a filter cannot be taken
// off): a denied call fails with EPERM while the rest still work, a call of
// the i386 ABI kills the process, and --lock-down refuses to run as root.
#include "volent/boot/lockdown.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include <gtest/gtest.h>

#include "ampoule/sandbox/seccomp_policy.h"

namespace volent::boot {
namespace {

// Runs `body` in a child; returns its wait status.
int InChild(const std::function<int()>& body) {
  pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

int LoadTheNodesFilter() {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 90;
  return ampoule::LoadSeccompDenyList(NodeDeniedSyscalls(), "test").ok() ? 0 : 91;
}

TEST(NodeLockDownTest, DeniedCallsFailWithEpermAndOthersWork) {
  int status = InChild([] {
    if (int rc = LoadTheNodesFilter()) return rc;
    if (syscall(SYS_personality, 0xffffffffUL) != -1 || errno != EPERM) return 10;
    if (syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0) != -1 || errno != EPERM) return 11;
    if (syscall(SYS_bpf, 0, nullptr, 0) != -1 || errno != EPERM) return 12;
    if (syscall(SYS_ptrace, 0, 0, 0, 0) != -1 || errno != EPERM) return 13;
    if (syscall(SYS_init_module, nullptr, 0, "") != -1 || errno != EPERM) return 14;
    if (syscall(SYS_io_uring_setup, 1, nullptr) != -1 || errno != EPERM) return 15;
    if (getpid() <= 0) return 20;
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2) return 21;
    // The jail's calls stay: a user namespace can still be made.
    if (unshare(CLONE_NEWUSER) != 0) return 22;
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

#if defined(__x86_64__)
TEST(NodeLockDownTest, AnotherAbiKills) {
  int status = InChild([] {
    if (int rc = LoadTheNodesFilter()) return rc;
    long ret = 20;  // i386 getpid
    asm volatile("int $0x80" : "+a"(ret) : : "memory");
    return 1;  // reached only if the call was let through
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "the i386 call was let through (status " << status << ")";
  EXPECT_EQ(WTERMSIG(status), SIGSYS);
}
#endif

TEST(NodeLockDownTest, RefusesRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "runs as root to see the refusal";
  auto locked = LockDownNode();
  ASSERT_FALSE(locked.ok());
  EXPECT_NE(locked.message().find("refusing to run as uid 0"), std::string::npos) << locked.message();
  EXPECT_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0);  // nothing was loaded
}

}  // namespace
}  // namespace volent::boot
