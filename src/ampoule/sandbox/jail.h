// The jail every run executes in.
//
// SpawnJailed starts an executable held in a descriptor (a memfd with the
// engine, or any opened static ELF) as PID 1 of fresh user, PID, network,
// mount, IPC, UTS and cgroup namespaces:
//   - ids: uid/gid 1000 inside, mapped to 65534 (nobody) outside when the
//     caller may map other ids (root), else to the caller's own ids;
//     setgroups is denied; the process has no capabilities after exec;
//   - network: a new namespace with only a loopback device that is down;
//   - files: the root is an empty read-only tmpfs, the host tree is
//     detached, /proc is not mounted; hostname and domain name "ampoule";
//   - descriptors: child_fds[i] becomes descriptor i, nothing else is open;
//   - environment: empty; the current directory is "/";
//   - rlimits: address space, CPU time, open files and processes from
//     JailOptions (by default one process: no fork), no file growth
//     (RLIMIT_FSIZE 0), no core dumps, no locked memory, no message queues;
//   - PR_SET_NO_NEW_PRIVS; the parent-death signal is SIGKILL;
//   - seccomp: the allow-list of seccomp_policy.h (stage kLaunch). A call it
//     forbids kills the process, which is then reported as signal SIGSYS.
// Killing PID 1 kills everything in its PID namespace, so the jail dies as
// a whole. As PID 1 the program does not receive signals it sends itself or
// the kernel raises for it unforced (SIGXFSZ, SIGPIPE, SIGXCPU) while their
// action is the default; faults and seccomp kills end it as usual.
// The parent-death signal is tied to the *thread* that called SpawnJailed:
// the jail is killed if that thread exits first.
//
// With JailOptions::insecure_no_jail only the descriptors, environment,
// rlimits, NO_NEW_PRIVS and a new session apply: no namespaces, no seccomp.
//
// Thread safety: SpawnJailed and CheckJailSupported may be called from any
// thread. A JailedProcess is thread-compatible (one owner at a time).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/result.h"
#include "core/unique_fd.h"

namespace ampoule {

struct JailOptions {
  // Run without namespaces and seccomp (only rlimits, descriptors, an empty
  // environment). For machines where a jail cannot be made; the user asks
  // for it with --insecure-no-jail.
  bool insecure_no_jail = false;
  uint64_t address_space_bytes = uint64_t{4} << 30;  // RLIMIT_AS
  // RLIMIT_CPU backstop (soft = hard: the kernel sends SIGKILL). The caller
  // also keeps a wall-clock deadline; CPU time does not pass while blocked.
  uint64_t cpu_seconds = 60;
  // RLIMIT_NOFILE. Must exceed child_fds.size() + 1 (the executable and the
  // error pipe are open until exec).
  uint64_t max_open_files = 16;
  // RLIMIT_NPROC, counted per jail (each has its own user namespace). The
  // default, 1, is the process itself: no fork even without seccomp. (As
  // root without a jail the kernel does not enforce it.)
  uint64_t max_processes = 1;
  // For tests only: namespaces without the seccomp filter, to check that
  // the namespaces hold on their own.
  bool skip_seccomp_for_testing = false;
};

// How a jailed process ended.
struct JailExit {
  bool exited = false;   // true: exit_code is valid; false: signal is
  int exit_code = 0;
  int signal = 0;        // SIGSYS: a system call the seccomp filter forbids
  bool timed_out = false;  // the host killed it (deadline or Kill())
  // The CPU limit ended it: SIGKILL not sent by the host, after at least
  // half the limit in CPU time (the kernel enforces the limit on tick-sampled
  // time, which runs ahead of the precise cpu_time below on a busy machine).
  bool cpu_limit_hit = false;
  uint64_t max_rss_bytes = 0;
  std::chrono::microseconds cpu_time{0};  // user + system

  // "exited with status 3", "killed by signal 31 (SIGSYS): it made a system
  // call the jail forbids", "killed by the host at its deadline" ...
  std::string Describe() const;
};

// A running jailed process. The destructor kills and reaps it if the owner
// has not, so no process or zombie outlives its handle.
class JailedProcess {
 public:
  JailedProcess(JailedProcess&&) noexcept;
  JailedProcess& operator=(JailedProcess&&) noexcept;
  ~JailedProcess();

  // Becomes readable (POLLIN) when the process has exited: put it in the
  // caller's poll set next to the output pipes, then call TryReap().
  int pidfd() const { return pidfd_.get(); }
  // The process id in the caller's PID namespace (for logs).
  pid_t pid() const { return pid_; }
  bool jailed() const { return jailed_; }

  // Non-blocking. Returns the exit once the process has ended (and reaps
  // it), std::nullopt while it runs. After a result, further calls return
  // the same result.
  core::Result<std::optional<JailExit>> TryReap();
  // Sends SIGKILL to the whole jail (without a jail: to its process group).
  // The exit reported later has timed_out = true. Idempotent.
  core::Status Kill();

 private:
  friend core::Result<JailedProcess> SpawnJailed(int, std::span<const int>,
                                           std::span<const std::string>, const JailOptions&);
  JailedProcess(pid_t pid, core::UniqueFd pidfd, bool jailed, uint64_t cpu_seconds);
  void KillAndReapIfRunning();

  pid_t pid_ = -1;
  core::UniqueFd pidfd_;
  bool jailed_ = true;
  uint64_t cpu_seconds_ = 0;
  bool killed_ = false;
  std::optional<JailExit> exit_;
};

// Starts the executable in `exec_fd` with execveat(exec_fd, "", argv, {},
// AT_EMPTY_PATH) in a fresh jail. child_fds[i] becomes descriptor i in the
// child; the caller keeps its own copies (close them after the call so the
// pipes see EOF). A mapped descriptor is the caller's open file description,
// shared: same access mode, file offset and status flags (use pread on a
// shared file). Directories (a way out of the empty root) and regular files
// open for writing (RLIMIT_FSIZE stops growth, not overwriting) are refused.
// Returns once the executable has been started; a failure while making the
// jail is returned as an error naming the step (for a missing namespace it
// mentions --insecure-no-jail), never as an exit code.
// REQUIRES: argv is not empty; exec_fd is an ELF executable (with
// O_CLOEXEC or not; a script cannot run: there is no interpreter inside).
core::Result<JailedProcess> SpawnJailed(int exec_fd, std::span<const int> child_fds,
                                  std::span<const std::string> argv, const JailOptions& options);

// Blocks until the process ends; at `deadline` (if any) kills the whole
// jail and reports timed_out. For callers that do not read pipes meanwhile;
// others poll pidfd() themselves and call TryReap()/Kill(). Pass a deadline
// even after the pipes have closed: a compromised program can close them
// and sleep, and RLIMIT_CPU does not count sleep.
core::Result<JailExit> WaitJailed(JailedProcess& process,
                            std::optional<std::chrono::steady_clock::time_point> deadline);

// Whether a jail can be made here: makes one (namespaces, mounts, ids,
// seccomp) and tears it down without running anything. The error names the
// missing namespace or feature and mentions --insecure-no-jail. Takes about
// as long as one SpawnJailed.
core::Status CheckJailSupported();

}  // namespace ampoule
