// The system-call table of the jail and its compilation with libseccomp.
//
// One row per system call that is not simply killed: how each stage treats
// it. Anything absent from the table kills the process (SIGSYS): sockets,
// process creation, exec by path, signals to others, ptrace, mount, unshare,
// setns, keyctl, bpf, perf_event_open, io_uring, userfaultfd, memfd_create,
// directory listing, module loading, reboot, and every call added to Linux
// after this table.
#include "ampoule/sandbox/seccomp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "core/errno_text.h"
#include "core/unique_fd.h"

namespace ampoule {
namespace {

enum class Rule {
  kKill,         // not allowed in this stage
  kAllow,        // allowed with any arguments
  kEperm,        // fails with EPERM (libc file probes)
  kEnosys,       // fails with ENOSYS (callers fall back to an older call)
  kExecFd,       // execveat(exec_fd, "", ..., AT_EMPTY_PATH) only
  kNoExecProt,   // mmap/mprotect without PROT_EXEC (no new machine code)
  kTtyQuery,     // ioctl TCGETS only (isatty); other requests fail ENOTTY
  kSelfLimits,   // prlimit64 on the calling process (pid 0) only
  kSelfSignal,   // tgkill to thread group 1: in the jail that is the caller
  kSafePrctl,    // prctl NO_NEW_PRIVS, SECCOMP, GET_DUMPABLE, SET_DUMPABLE 0
};

struct SyscallRow {
  const char* name;
  Rule launch;
  Rule engine;
};

// Why each row is here: a static glibc/libstdc++ program calls these to start
// (arch_prctl .. rseq, prlimit64 for the stack limit, readlink of
// /proc/self/exe, getrandom for malloc), to allocate, to do I/O on the
// descriptors it was given, to tell time, and to raise a signal at itself.
constexpr SyscallRow kSyscalls[] = {
    // Process start-up (glibc's static start, libseccomp for the second stage).
    {"execveat", Rule::kExecFd, Rule::kKill},
    {"arch_prctl", Rule::kAllow, Rule::kKill},
    {"set_tid_address", Rule::kAllow, Rule::kKill},
    {"set_robust_list", Rule::kAllow, Rule::kKill},
    {"rseq", Rule::kAllow, Rule::kKill},
    {"seccomp", Rule::kAllow, Rule::kKill},
    {"prctl", Rule::kSafePrctl, Rule::kKill},
    // Memory.
    {"brk", Rule::kAllow, Rule::kAllow},
    {"mmap", Rule::kAllow, Rule::kNoExecProt},
    {"mprotect", Rule::kAllow, Rule::kNoExecProt},
    {"munmap", Rule::kAllow, Rule::kAllow},
    {"mremap", Rule::kAllow, Rule::kAllow},
    {"madvise", Rule::kAllow, Rule::kAllow},
    // I/O on the mapped descriptors.
    {"read", Rule::kAllow, Rule::kAllow},
    {"write", Rule::kAllow, Rule::kAllow},
    {"readv", Rule::kAllow, Rule::kAllow},
    {"writev", Rule::kAllow, Rule::kAllow},
    {"pread64", Rule::kAllow, Rule::kAllow},
    {"pwrite64", Rule::kAllow, Rule::kAllow},
    {"lseek", Rule::kAllow, Rule::kAllow},
    {"close", Rule::kAllow, Rule::kAllow},
    {"fstat", Rule::kAllow, Rule::kAllow},
    {"newfstatat", Rule::kAllow, Rule::kAllow},  // glibc's fstat(fd)
    {"fcntl", Rule::kAllow, Rule::kAllow},
    {"dup", Rule::kAllow, Rule::kAllow},
    {"dup2", Rule::kAllow, Rule::kAllow},
    {"dup3", Rule::kAllow, Rule::kAllow},
    {"poll", Rule::kAllow, Rule::kAllow},
    {"ppoll", Rule::kAllow, Rule::kAllow},
    {"ioctl", Rule::kTtyQuery, Rule::kTtyQuery},
    // Threads' primitives, signals to itself, exit.
    {"futex", Rule::kAllow, Rule::kAllow},
    {"rt_sigaction", Rule::kAllow, Rule::kAllow},
    {"rt_sigprocmask", Rule::kAllow, Rule::kAllow},
    {"rt_sigreturn", Rule::kAllow, Rule::kAllow},
    {"sigaltstack", Rule::kAllow, Rule::kAllow},
    {"restart_syscall", Rule::kAllow, Rule::kAllow},
    {"tgkill", Rule::kSelfSignal, Rule::kSelfSignal},  // raise(), abort()
    {"exit", Rule::kAllow, Rule::kAllow},
    {"exit_group", Rule::kAllow, Rule::kAllow},
    // Time, randomness, identity, limits: read-only facts about itself.
    {"clock_gettime", Rule::kAllow, Rule::kAllow},
    {"clock_getres", Rule::kAllow, Rule::kAllow},
    {"gettimeofday", Rule::kAllow, Rule::kAllow},
    {"time", Rule::kAllow, Rule::kAllow},
    {"clock_nanosleep", Rule::kAllow, Rule::kAllow},
    {"nanosleep", Rule::kAllow, Rule::kAllow},
    {"sched_yield", Rule::kAllow, Rule::kAllow},
    {"getrandom", Rule::kAllow, Rule::kAllow},
    {"getpid", Rule::kAllow, Rule::kAllow},
    {"gettid", Rule::kAllow, Rule::kAllow},
    {"getppid", Rule::kAllow, Rule::kAllow},
    {"getuid", Rule::kAllow, Rule::kAllow},
    {"geteuid", Rule::kAllow, Rule::kAllow},
    {"getgid", Rule::kAllow, Rule::kAllow},
    {"getegid", Rule::kAllow, Rule::kAllow},
    {"getrusage", Rule::kAllow, Rule::kAllow},
    {"times", Rule::kAllow, Rule::kAllow},
    {"uname", Rule::kAllow, Rule::kAllow},
    {"sysinfo", Rule::kAllow, Rule::kAllow},
    {"sched_getaffinity", Rule::kAllow, Rule::kAllow},  // sysconf(NPROCESSORS)
    {"getcwd", Rule::kAllow, Rule::kAllow},
    {"prlimit64", Rule::kSelfLimits, Rule::kSelfLimits},
    // File probes by path: libc looks for /proc/self/exe, locales, gconv
    // modules. The mount view is empty anyway; refuse quietly.
    {"open", Rule::kEperm, Rule::kEperm},
    {"openat", Rule::kEperm, Rule::kEperm},
    {"openat2", Rule::kEnosys, Rule::kEnosys},
    {"creat", Rule::kEperm, Rule::kEperm},
    {"access", Rule::kEperm, Rule::kEperm},
    {"faccessat", Rule::kEperm, Rule::kEperm},
    {"faccessat2", Rule::kEperm, Rule::kEperm},
    {"readlink", Rule::kEperm, Rule::kEperm},
    {"readlinkat", Rule::kEperm, Rule::kEperm},
    {"stat", Rule::kEperm, Rule::kEperm},
    {"lstat", Rule::kEperm, Rule::kEperm},
    {"statx", Rule::kEnosys, Rule::kEnosys},
    {"statfs", Rule::kEperm, Rule::kEperm},
    {"fstatfs", Rule::kEperm, Rule::kEperm},
};

using FilterPtr = std::unique_ptr<void, void (*)(scmp_filter_ctx)>;

// A comparison of argument `arg` (all 64 bits: a value with stray upper bits
// does not match, so it is refused, never let through). libseccomp's
// SCMP_A*_32 macros leave datum_b unset, which Clang warns about.
scmp_arg_cmp Arg(unsigned arg, scmp_compare op, uint64_t a, uint64_t b = 0) {
  return scmp_arg_cmp{arg, op, a, b};
}

int AddRule(scmp_filter_ctx ctx, Rule rule, int nr, int exec_fd) {
  const uint32_t allow = SCMP_ACT_ALLOW;
  switch (rule) {
    case Rule::kKill:
      return 0;  // the default action
    case Rule::kAllow:
      return seccomp_rule_add_exact(ctx, allow, nr, 0);
    case Rule::kEperm:
      return seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    case Rule::kEnosys:
      return seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
    case Rule::kExecFd:
      return seccomp_rule_add_exact(ctx, allow, nr, 2, Arg(0, SCMP_CMP_EQ, exec_fd),
                                    Arg(4, SCMP_CMP_EQ, AT_EMPTY_PATH));
    case Rule::kNoExecProt:
      return seccomp_rule_add_exact(ctx, allow, nr, 1,
                                    Arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    case Rule::kTtyQuery:
      if (int rc = seccomp_rule_add_exact(ctx, allow, nr, 1, Arg(1, SCMP_CMP_EQ, TCGETS)))
        return rc;
      return seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(ENOTTY), nr, 1,
                                    Arg(1, SCMP_CMP_NE, TCGETS));
    case Rule::kSelfLimits:
      return seccomp_rule_add_exact(ctx, allow, nr, 1, Arg(0, SCMP_CMP_EQ, 0));
    case Rule::kSelfSignal:
      return seccomp_rule_add_exact(ctx, allow, nr, 1, Arg(0, SCMP_CMP_EQ, 1));
    case Rule::kSafePrctl: {
      const int safe[] = {PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_SET_SECCOMP,
                          PR_GET_SECCOMP, PR_GET_DUMPABLE};
      for (int option : safe) {
        if (int rc = seccomp_rule_add_exact(ctx, allow, nr, 1, Arg(0, SCMP_CMP_EQ, option)))
          return rc;
      }
      // Becoming non-dumpable (exec made it dumpable again) is fine; any
      // other option (PR_SET_DUMPABLE 1, PR_SET_MM ...) kills.
      return seccomp_rule_add_exact(ctx, allow, nr, 2, Arg(0, SCMP_CMP_EQ, PR_SET_DUMPABLE),
                                    Arg(1, SCMP_CMP_EQ, 0));
    }
  }
  return -EINVAL;
}

// Writes the filter as BPF to a memory file and reads it back (libseccomp
// 2.5 exports only to a descriptor).
core::Result<SeccompProgram> Export(scmp_filter_ctx ctx) {
  core::UniqueFd mem(memfd_create("ampoule-seccomp", MFD_CLOEXEC));
  if (!mem.valid()) return core::Error{std::string("jail: memfd_create: ") + core::ErrnoText()};
  if (int rc = seccomp_export_bpf(ctx, mem.get()))
    return core::Error{std::string("jail: exporting the seccomp filter: ") + core::ErrnoText(-rc)};
  struct stat st;
  if (fstat(mem.get(), &st) != 0 || st.st_size % sizeof(sock_filter) != 0)
    return core::Error{"jail: the exported seccomp filter has an odd size"};
  SeccompProgram program;
  program.code.resize(st.st_size / sizeof(sock_filter));
  const size_t bytes = program.code.size() * sizeof(sock_filter);
  if (pread(mem.get(), program.code.data(), bytes, 0) != static_cast<ssize_t>(bytes))
    return core::Error{"jail: reading back the seccomp filter failed"};
  return program;
}

// The system call `name` names on this architecture.
core::Result<int> Resolve(const char* name) {
  const int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return core::Error{std::string("libseccomp does not know system call ") + name};
  return nr;
}

core::Result<FilterPtr> BuildFilter(SeccompStage stage, int exec_fd) {
  FilterPtr ctx(seccomp_init(SCMP_ACT_KILL_PROCESS), seccomp_release);
  if (!ctx) return core::Error{"seccomp_init failed (out of memory?)"};
  // The caller sets NO_NEW_PRIVS itself; the filter must not try again.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);
  for (const SyscallRow& row : kSyscalls) {
    const Rule rule = stage == SeccompStage::kLaunch ? row.launch : row.engine;
    core::Result<int> nr = Resolve(row.name);
    if (!nr.ok()) return nr.error();
    if (int rc = AddRule(ctx.get(), rule, *nr, exec_fd))
      return core::Error{std::string("seccomp rule for ") + row.name + ": " + core::ErrnoText(-rc)};
  }
  return ctx;
}

}  // namespace

core::Result<SeccompProgram> CompileSeccompFilter(SeccompStage stage, int exec_fd) {
  core::Result<FilterPtr> ctx = BuildFilter(stage, exec_fd);
  if (!ctx.ok()) return core::Error{"jail: " + ctx.message()};
  return Export(ctx->get());
}

core::Status LoadSeccompFilter(SeccompStage stage) {
  core::Result<FilterPtr> ctx = BuildFilter(stage, -1);
  if (!ctx.ok()) return core::Error{"lock-down: " + ctx.message()};
  if (int rc = seccomp_load(ctx->get()))
    return core::Error{std::string("lock-down: loading the seccomp filter: ") + core::ErrnoText(-rc)};
  return core::Status::Ok();
}

core::Status LoadSeccompDenyList(std::span<const char* const> denied, const std::string& who) {
  FilterPtr ctx(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!ctx) return core::Error{who + ": seccomp_init failed (out of memory?)"};
  // Another ABI's numbers mean other calls: none of it passes.
  if (seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0 ||
      seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0) != 0 ||
      seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_TSYNC, 1) != 0)
    return core::Error{who + ": setting the seccomp filter's attributes failed"};
  for (const char* name : denied) {
    core::Result<int> nr = Resolve(name);
    if (!nr.ok()) return core::Error{who + ": " + nr.message()};
    if (int rc = seccomp_rule_add_exact(ctx.get(), SCMP_ACT_ERRNO(EPERM), *nr, 0))
      return core::Error{who + ": seccomp rule for " + name + ": " + core::ErrnoText(-rc)};
  }
  if (int rc = seccomp_load(ctx.get()))
    return core::Error{who + ": loading the seccomp filter: " + core::ErrnoText(-rc)};
  return core::Status::Ok();
}

}  // namespace ampoule
