// The engine's second seccomp stage.
//
// The jail starts the engine under the kLaunch filter (seccomp_policy.h),
// which still allows what start-up needs. Once the engine has read its
// request and mapped its inputs it calls LockDownEngine(), which stacks the
// kEngine filter: no exec, no executable memory (mmap/mprotect with
// PROT_EXEC), no prctl, no further filters, none of glibc's start-up calls.
// It also makes the process non-dumpable again (exec had reset that), so no
// process outside with the same uid can ptrace it or read its memory.
//
// Works inside the jail and outside it (--insecure-no-jail, tests): it sets
// PR_SET_NO_NEW_PRIVS itself. Fails only where the kernel has no seccomp
// filters; the caller decides whether to continue (never inside a jail,
// where the launch filter proves seccomp works).
// REQUIRES: the process is single-threaded (the filter applies to the
// calling thread and its future children only).
#pragma once

#include "core/result.h"

namespace ampoule {

core::Status LockDownEngine();

}  // namespace ampoule
