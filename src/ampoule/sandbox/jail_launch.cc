// Parent side of starting a jail child: clone, id maps, the error pipe.
#include "ampoule/sandbox/jail_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "core/errno_text.h"

namespace ampoule {
namespace {

struct Namespace {
  uint64_t flag;
  const char* name;
};
constexpr Namespace kNamespaces[] = {
    {CLONE_NEWUSER, "user"}, {CLONE_NEWPID, "PID"},  {CLONE_NEWNET, "network"},
    {CLONE_NEWNS, "mount"},  {CLONE_NEWIPC, "IPC"},  {CLONE_NEWUTS, "UTS"},
    {CLONE_NEWCGROUP, "cgroup"},
};
constexpr uint64_t kAllNamespaces = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS |
                                    CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

constexpr char kInsecureHint[] =
    " A jail cannot be made on this machine; --insecure-no-jail runs without one "
    "(no namespaces, no seccomp: the program is not isolated).";

// fork-like clone with a pidfd; returns 0 in the child. The classic clone
// call rather than clone3: container runtimes' seccomp profiles (Docker's)
// refuse clone3 outright but allow clone without namespace flags, so
// --insecure-no-jail works there and a refused namespace is named.
pid_t Clone(uint64_t flags, int* pidfd) {
  // flags, stack, parent_tid (receives the pidfd), then child_tid and tls,
  // whose order differs between x86-64 and arm64 but which are both zero.
  return static_cast<pid_t>(
      syscall(SYS_clone, flags | CLONE_PIDFD | SIGCHLD, nullptr, pidfd, nullptr, 0));
}


// After clone refused the full set: which namespace alone is refused.
std::string MissingNamespace(int clone_errno) {
  for (const Namespace& ns : kNamespaces) {
    const uint64_t flags = ns.flag == CLONE_NEWUSER ? ns.flag : ns.flag | CLONE_NEWUSER;
    int pidfd = -1;
    const pid_t pid = Clone(flags, &pidfd);
    if (pid == 0) _exit(0);
    if (pid < 0) {
      return std::string("jail: cannot create a ") + ns.name + " namespace (clone: " +
             core::ErrnoText(errno) + ")." + kInsecureHint;
    }
    siginfo_t info;
    syscall(SYS_waitid, P_PIDFD, pidfd, &info, WEXITED, nullptr);
    close(pidfd);
  }
  return "jail: cannot create the jail's namespaces (clone: " + core::ErrnoText(clone_errno) + ")." +
         kInsecureHint;
}

bool WriteFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  close(fd);
  errno = saved;
  return ok;
}

// Maps the inside ids to "nobody" when this process may (it is root), else
// to its own ids, the one mapping an unprivileged user may write.
core::Status MapIds(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/";
  const std::string uid = std::to_string(kJailUid) + " ";
  const std::string gid = std::to_string(kJailGid) + " ";
  if (!WriteFile(dir + "setgroups", "deny"))
    return core::Error{"jail: writing " + dir + "setgroups failed: " + core::ErrnoText(errno) + "." +
                 kInsecureHint};
  if (!WriteFile(dir + "uid_map", uid + "65534 1") &&
      !WriteFile(dir + "uid_map", uid + std::to_string(geteuid()) + " 1"))
    return core::Error{"jail: writing " + dir + "uid_map failed: " + core::ErrnoText(errno) + "." +
                 kInsecureHint};
  if (!WriteFile(dir + "gid_map", gid + "65534 1") &&
      !WriteFile(dir + "gid_map", gid + std::to_string(getegid()) + " 1"))
    return core::Error{"jail: writing " + dir + "gid_map failed: " + core::ErrnoText(errno) + "." +
                 kInsecureHint};
  return core::Status::Ok();
}

void KillAndReap(int pidfd) {
  syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
  siginfo_t info;
  syscall(SYS_waitid, P_PIDFD, pidfd, &info, WEXITED, nullptr);
}

// Reads the child's report: end-of-file means it exec'd (the pipe is
// close-on-exec) or, when probing, finished.
core::Status ReadChildReport(int error_fd, bool jailed) {
  ChildFailure failure;
  ssize_t n;
  do {
    n = read(error_fd, &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return core::Status::Ok();
  if (n != sizeof failure || failure.step >= kChildStepCount)
    return core::Error{"jail: the child process ended before it could report (read: " +
                 core::ErrnoText(n < 0 ? errno : EIO) + ")"};
  const auto step = static_cast<ChildStep>(failure.step);
  std::string message = std::string("jail: ") + ChildStepDescription(step) +
                        " failed: " + core::ErrnoText(failure.error);
  const bool jail_feature = step != ChildStep::kExec && step != ChildStep::kDescriptors &&
                            step != ChildStep::kLimits;
  if (jailed && jail_feature) message += std::string(".") + kInsecureHint;
  return core::Error{message};
}

}  // namespace

// The child's own report beats the parent's view of a failure: when it
// died before the maps were written, its report says why.
core::Error PreferChildReport(int report_fd, bool jailed, core::Error parent_view) {
  core::Status report = ReadChildReport(report_fd, jailed);
  return report.ok() ? parent_view : report.error();
}

core::Result<LaunchedChild> LaunchJailChild(ChildPlan plan) {
  // The go-ahead travels over a socket pair, not a pipe: send() with
  // MSG_NOSIGNAL cannot raise SIGPIPE in this process if the child is gone.
  int sync[2], report[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sync) != 0)
    return core::Error{"jail: socketpair: " + core::ErrnoText(errno)};
  core::UniqueFd sync_child(sync[0]), sync_parent(sync[1]);
  if (pipe2(report, O_CLOEXEC) != 0) return core::Error{"jail: pipe2: " + core::ErrnoText(errno)};
  core::UniqueFd report_read(report[0]), report_write(report[1]);
  plan.sync_fd = sync_child.get();
  plan.error_fd = report_write.get();

  // Signals stay blocked in the child until just before exec, so no handler
  // of this process runs in the copy.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int pidfd = -1;
  const pid_t pid = Clone(plan.jailed ? kAllNamespaces : 0, &pidfd);
  if (pid == 0) RunJailChild(plan);
  const int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) {
    if (plan.jailed) return core::Error{MissingNamespace(clone_errno)};
    return core::Error{"jail: clone failed: " + core::ErrnoText(clone_errno)};
  }
  LaunchedChild child{pid, core::UniqueFd(pidfd)};
  sync_child.reset();
  report_write.reset();  // from here on only the child can write a report
  core::Status ready = plan.jailed ? MapIds(pid) : core::Status::Ok();
  if (ready.ok() && send(sync_parent.get(), "x", 1, MSG_NOSIGNAL) != 1)
    ready = core::Error{"jail: could not signal the child: " + core::ErrnoText(errno)};
  if (!ready.ok()) {
    KillAndReap(pidfd);
    return PreferChildReport(report_read.get(), plan.jailed, ready.error());
  }
  sync_parent.reset();
  if (core::Status report_status = ReadChildReport(report_read.get(), plan.jailed); !report_status.ok()) {
    KillAndReap(pidfd);
    return report_status.error();
  }
  return child;
}

}  // namespace ampoule
