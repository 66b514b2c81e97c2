// The child side of SpawnJailed: what runs between clone and execveat.
//
// The child is a copy of a possibly multi-threaded parent, so it may only
// make system calls: no allocation, no locks, no stdio. Everything it needs
// is prepared by the parent in a ChildPlan. A failing step writes one
// ChildFailure to the error pipe (close-on-exec, so a successful exec closes
// it with nothing written) and exits 127; the parent turns it into a message.
#pragma once

#include <linux/filter.h>
#include <sys/resource.h>

#include <cstddef>
#include <cstdint>

namespace ampoule {

// The inside ids; the parent maps them to an outside id before kSync ends.
inline constexpr unsigned kJailUid = 1000;
inline constexpr unsigned kJailGid = 1000;

enum class ChildStep : uint32_t {
  kSync,          // waiting for the parent to map the ids
  kSignals,       // default dispositions, new session
  kMountPrivate,  // stop mount propagation to and from the host
  kTmpfs,         // make the empty root
  kPivotRoot,     // switch to it
  kDetachOldRoot, // drop the host tree
  kHostname,
  kIds,           // become uid/gid 1000 (drops all capabilities)
  kDescriptors,   // child_fds -> 0..n-1, close the rest
  kLimits,        // setrlimit
  kNoNewPrivs,    // also PR_SET_DUMPABLE 0 and the parent-death signal
  kSeccomp,
  kExec,
};
inline constexpr uint32_t kChildStepCount = static_cast<uint32_t>(ChildStep::kExec) + 1;

// A sentence for the parent's error message ("mounting the empty root").
const char* ChildStepDescription(ChildStep step);

struct ChildFailure {
  uint32_t step;   // a ChildStep
  int32_t error;   // errno
};

struct ChildLimit {
  int resource;    // RLIMIT_*
  rlim_t value;    // soft = hard
};

struct ChildPlan {
  bool jailed = true;         // false: --insecure-no-jail (no mounts, ids, seccomp)
  bool probe_only = false;    // CheckJailSupported: exit 0 instead of exec
  int sync_fd = -1;           // one byte arrives here once the ids are mapped
  int error_fd = -1;          // write end of the error pipe
  int exec_fd = -1;           // -1 only when probe_only
  const int* child_fds = nullptr;
  size_t child_fd_count = 0;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const ChildLimit* limits = nullptr;
  size_t limit_count = 0;
  const sock_fprog* seccomp = nullptr;  // null: no filter
  // Tests only: the step (a ChildStep) to fail with EIO; kChildStepCount
  // means none.
  uint32_t fail_at = kChildStepCount;
};

// Sets up the jail and execs; never returns.
[[noreturn]] void RunJailChild(const ChildPlan& plan);

}  // namespace ampoule
