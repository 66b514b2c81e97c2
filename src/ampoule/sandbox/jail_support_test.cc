// Where a namespace cannot be made, the jail refuses with a message that
// names it and mentions --insecure-no-jail, and the insecure mode still
// runs. The missing namespace is simulated with a seccomp filter (as a
// container runtime's profile does it) in a forked copy of this test.
#include <gtest/gtest.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "ampoule/sandbox/jail.h"
#include "ampoule/sandbox/jail_testing.h"

namespace ampoule {
namespace {

// Runs `body` in a child whose clone fails with EPERM when its flags
// include `refused`; returns what the body wrote.
std::string WithRefusedNamespace(uint64_t refused, std::string (*body)()) {
  int out[2];
  if (pipe(out) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(out[0]);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                     SCMP_A0_64(SCMP_CMP_MASKED_EQ, refused, refused));
    if (seccomp_load(ctx) != 0) _exit(1);
    const std::string text = body();
    _exit(write(out[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  close(out[1]);
  std::string text = testing::ReadToEof(out[0], std::chrono::seconds(20)).value_or("timeout");
  close(out[0]);
  waitpid(pid, nullptr, 0);
  return text;
}

std::string Check() {
  core::Status status = CheckJailSupported();
  return status.ok() ? "supported" : status.message();
}

std::string SpawnJailedAndInsecure() {
  std::string text = testing::RunProbe("jail_probe", {"hello"}).spawn_error + "\n";
  JailOptions insecure;
  insecure.insecure_no_jail = true;
  return text + testing::RunProbe("jail_probe", {"hello"}, insecure).output;
}

TEST(JailSupportTest, AMissingUserNamespaceIsNamed) {
  EXPECT_EQ(WithRefusedNamespace(CLONE_NEWUSER, Check),
            "jail: cannot create a user namespace (clone: Operation not permitted). A jail "
            "cannot be made on this machine; --insecure-no-jail runs without one (no "
            "namespaces, no seccomp: the program is not isolated).");
}

TEST(JailSupportTest, AMissingNetworkNamespaceIsNamed) {
  const std::string message = WithRefusedNamespace(CLONE_NEWNET, Check);
  EXPECT_EQ(message.rfind("jail: cannot create a network namespace (clone: ", 0), 0) << message;
  EXPECT_NE(message.find("--insecure-no-jail"), std::string::npos);
}

TEST(JailSupportTest, SpawnRefusesButTheInsecureModeRuns) {
  const std::string text = WithRefusedNamespace(CLONE_NEWPID, SpawnJailedAndInsecure);
  EXPECT_EQ(text.rfind("jail: cannot create a PID namespace", 0), 0) << text;
  EXPECT_NE(text.find("\nhello from the jail\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace ampoule
