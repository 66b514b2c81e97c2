// The child side of SpawnJailed. Only system calls from here on: this runs
// in a copy of a process whose other threads may hold locks (see
// jail_child.h).
#include "ampoule/sandbox/jail_child.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <initializer_list>

namespace ampoule {
namespace {

// The most descriptors a jailed process can be given (checked by the parent).
constexpr size_t kMaxChildFds = 64;

[[noreturn]] void Fail(int error_fd, ChildStep step) {
  const ChildFailure failure{static_cast<uint32_t>(step), errno};
  ssize_t ignored = write(error_fd, &failure, sizeof failure);
  (void)ignored;
  _exit(127);
}

// Fault injection for tests: fails `step` with EIO when the plan asks to.
void Begin(const ChildPlan& plan, ChildStep step, int error_fd) {
  if (plan.fail_at == static_cast<uint32_t>(step)) {
    errno = EIO;
    Fail(error_fd, step);
  }
}

// Default dispositions (an ignored signal would stay ignored across exec) and
// a session of its own (so kill(0, ...) reaches nothing outside).
bool ResetSignals() {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);  // 32/33 refuse: fine
  }
  return setsid() >= 0;
}

// Replaces the root with an empty read-only tmpfs and detaches the host's
// tree. The tmpfs is made detached (fsmount), attached over "/", and becomes
// the root with pivot_root(".", "."); no host directory is needed.
void MakeEmptyRoot(const ChildPlan& plan, int error_fd) {
  Begin(plan, ChildStep::kMountPrivate, error_fd);
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    Fail(error_fd, ChildStep::kMountPrivate);
  Begin(plan, ChildStep::kTmpfs, error_fd);
  const int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
  if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "size", "4k", 0) != 0 ||
      fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", "2", 0) != 0 ||
      fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0555", 0) != 0 ||
      fsconfig(fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    Fail(error_fd, ChildStep::kTmpfs);
  const unsigned attrs =
      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
  const int mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
  if (mnt < 0 || fchdir(mnt) != 0 ||
      move_mount(mnt, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) != 0)
    Fail(error_fd, ChildStep::kTmpfs);
  close(mnt);
  close(fs);
  Begin(plan, ChildStep::kPivotRoot, error_fd);
  if (syscall(SYS_pivot_root, ".", ".") != 0) Fail(error_fd, ChildStep::kPivotRoot);
  Begin(plan, ChildStep::kDetachOldRoot, error_fd);
  if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
    Fail(error_fd, ChildStep::kDetachOldRoot);
}

void BecomeUnprivileged(const ChildPlan& plan, int error_fd) {
  static const char kName[] = "ampoule";
  Begin(plan, ChildStep::kHostname, error_fd);
  if (sethostname(kName, sizeof kName - 1) != 0 || setdomainname(kName, sizeof kName - 1) != 0)
    Fail(error_fd, ChildStep::kHostname);
  // A non-zero uid in the user namespace: exec leaves no capabilities.
  // Raw system calls, not glibc's setresgid/setresuid: those change the ids
  // of every thread glibc knows of, and this child of a raw clone inherited
  // the parent's thread list without its threads, so in a multi-threaded
  // host (the MCP server) glibc could wait for them forever.
  Begin(plan, ChildStep::kIds, error_fd);
  if (syscall(SYS_setresgid, kJailGid, kJailGid, kJailGid) != 0 ||
      syscall(SYS_setresuid, kJailUid, kJailUid, kJailUid) != 0)
    Fail(error_fd, ChildStep::kIds);
}

// child_fds[i] -> i; the executable -> n and the error pipe -> n + 1, both
// close-on-exec; everything else closed. Every source is first copied above
// all of them, so a source that is also a target is never clobbered and
// dup2 always clears close-on-exec. Returns the new error descriptor.
int ArrangeDescriptors(const ChildPlan& plan, int error_fd) {
  Begin(plan, ChildStep::kDescriptors, error_fd);
  const size_t n = plan.child_fd_count;
  int base = static_cast<int>(n) + 2;
  for (size_t i = 0; i < n; ++i) base = plan.child_fds[i] >= base ? plan.child_fds[i] + 1 : base;
  for (int fd : {plan.exec_fd, error_fd}) base = fd >= base ? fd + 1 : base;
  int high[kMaxChildFds];
  // A probe (CheckJailSupported) has no executable: -1 stays -1.
  const int exec_high = plan.exec_fd < 0 ? -1 : fcntl(plan.exec_fd, F_DUPFD_CLOEXEC, base);
  const int error_high = fcntl(error_fd, F_DUPFD_CLOEXEC, base);
  if ((plan.exec_fd >= 0 && exec_high < 0) || error_high < 0)
    Fail(error_fd, ChildStep::kDescriptors);
  error_fd = error_high;
  for (size_t i = 0; i < n; ++i) {
    high[i] = fcntl(plan.child_fds[i], F_DUPFD_CLOEXEC, base);
    if (high[i] < 0) Fail(error_fd, ChildStep::kDescriptors);
  }
  for (size_t i = 0; i < n; ++i) {
    if (dup2(high[i], static_cast<int>(i)) < 0) Fail(error_fd, ChildStep::kDescriptors);
  }
  const int exec_fd = static_cast<int>(n);
  if ((exec_high >= 0 && dup3(exec_high, exec_fd, O_CLOEXEC) < 0) ||
      dup3(error_high, exec_fd + 1, O_CLOEXEC) < 0)
    Fail(error_fd, ChildStep::kDescriptors);
  error_fd = exec_fd + 1;
  if (close_range(exec_fd + 2, ~0U, 0) != 0) Fail(error_fd, ChildStep::kDescriptors);
  return error_fd;
}

void ApplyLimits(const ChildPlan& plan, int error_fd) {
  Begin(plan, ChildStep::kLimits, error_fd);
  for (size_t i = 0; i < plan.limit_count; ++i) {
    const rlimit limit{plan.limits[i].value, plan.limits[i].value};
    if (setrlimit(static_cast<__rlimit_resource>(plan.limits[i].resource), &limit) != 0)
      Fail(error_fd, ChildStep::kLimits);
  }
}

}  // namespace

const char* ChildStepDescription(ChildStep step) {
  switch (step) {
    case ChildStep::kSync: return "waiting for the uid/gid maps";
    case ChildStep::kSignals: return "resetting signals and starting a session";
    case ChildStep::kMountPrivate: return "making the mount namespace private";
    case ChildStep::kTmpfs: return "mounting the empty root (tmpfs)";
    case ChildStep::kPivotRoot: return "switching to the empty root (pivot_root)";
    case ChildStep::kDetachOldRoot: return "detaching the host's file tree";
    case ChildStep::kHostname: return "setting the host name";
    case ChildStep::kIds: return "switching to uid/gid 1000 inside the jail";
    case ChildStep::kDescriptors: return "arranging the descriptors";
    case ChildStep::kLimits: return "setting resource limits";
    case ChildStep::kNoNewPrivs: return "setting no-new-privileges and the parent-death signal";
    case ChildStep::kSeccomp: return "installing the seccomp filter";
    case ChildStep::kExec: return "starting the executable (execveat)";
  }
  return "an unknown step";
}

void RunJailChild(const ChildPlan& plan) {
  int error_fd = plan.error_fd;
  char byte;
  Begin(plan, ChildStep::kSync, error_fd);
  if (read(plan.sync_fd, &byte, 1) != 1) Fail(error_fd, ChildStep::kSync);
  close(plan.sync_fd);
  Begin(plan, ChildStep::kSignals, error_fd);
  if (!ResetSignals()) Fail(error_fd, ChildStep::kSignals);
  if (plan.jailed) {
    MakeEmptyRoot(plan, error_fd);
    BecomeUnprivileged(plan, error_fd);
  }
  error_fd = ArrangeDescriptors(plan, error_fd);
  ApplyLimits(plan, error_fd);
  // The parent-death signal is set here, after the id switch: a change of
  // credentials clears it.
  Begin(plan, ChildStep::kNoNewPrivs, error_fd);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
      prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    Fail(error_fd, ChildStep::kNoNewPrivs);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);  // the mask survives exec
  Begin(plan, ChildStep::kSeccomp, error_fd);
  if (plan.seccomp != nullptr &&
      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, plan.seccomp) != 0)
    Fail(error_fd, ChildStep::kSeccomp);
  if (plan.probe_only) _exit(0);
  const int exec_fd = static_cast<int>(plan.child_fd_count);
  Begin(plan, ChildStep::kExec, error_fd);
  // Whole registers: the filter compares all 64 bits of each argument.
  syscall(SYS_execveat, long{exec_fd}, "", plan.argv, plan.envp, long{AT_EMPTY_PATH});
  Fail(error_fd, ChildStep::kExec);
}

}  // namespace ampoule
