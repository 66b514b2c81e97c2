// The seccomp allow-lists of the jail, as one table and two compiled stages.
//
// Stage kLaunch is installed by the jail just before execveat and covers
// everything a static glibc C++ program needs to start and run. Stage kEngine
// is stacked on top by LockDownEngine() once the engine has read its inputs;
// it drops exec, the start-up-only calls and executable memory. The kernel
// applies every installed filter, so a stage can only take rights away.
//
// Denied calls kill the whole process (it dies by SIGSYS), except a few calls
// a libc makes on its own to probe for files (open, readlink, access, stat by
// path ...): those fail with EPERM, so a harmless probe does not end the run.
// The full list with reasons is in seccomp_policy.cc and
// docs/decisions/0012-jail.md.
#pragma once

#include <linux/filter.h>

#include <span>
#include <vector>

#include "core/result.h"

namespace ampoule {

enum class SeccompStage {
  kLaunch,  // installed by the jail; allows execveat of the engine only
  kEngine,  // installed by LockDownEngine; no exec, no executable memory
};

// A classic BPF program for seccomp(SECCOMP_SET_MODE_FILTER).
struct SeccompProgram {
  std::vector<sock_filter> code;
  sock_fprog fprog() {
    return sock_fprog{static_cast<unsigned short>(code.size()), code.data()};
  }
};

// Compiles the filter of `stage` for the native architecture; system calls of
// any other ABI (i386 int 0x80, x32) kill the process. `exec_fd` is the only
// descriptor execveat may run (kLaunch; ignored for kEngine).
core::Result<SeccompProgram> CompileSeccompFilter(SeccompStage stage, int exec_fd);

// Builds the filter of `stage` and installs it on the calling thread with
// libseccomp (no descriptor needed, so it works under the kLaunch filter).
// REQUIRES: PR_SET_NO_NEW_PRIVS is set. Single-threaded callers only.
core::Status LoadSeccompFilter(SeccompStage stage);

// A deny-list filter for a program too large for an allow-list (the Volent
// node: a server, SQLite, the TPM, the jail it starts): each call named in
// `denied` fails with EPERM, every other call of the native ABI is allowed,
// and any call of another ABI (i386 int 0x80, x32) kills the process. The
// filter covers every thread of the process (TSYNC) and everything it
// starts; a later filter (the jail's) can only take more away. `who` starts
// the error messages. A name libseccomp does not know is an error.
// REQUIRES: PR_SET_NO_NEW_PRIVS is set (or the caller has CAP_SYS_ADMIN).
core::Status LoadSeccompDenyList(std::span<const char* const> denied, const std::string& who);

}  // namespace ampoule
