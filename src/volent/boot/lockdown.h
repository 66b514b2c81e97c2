// `volent node --lock-down`: what the sealed image's node does to itself
// before it starts anything (docs/image.md, docs/decisions/0050-image-env-and-node-user.md).
//
// PID 1 starts the node as its own user (kNodeUid, no capability, no
// supplementary group but its own, PR_SET_NO_NEW_PRIVS set); the node then
// refuses to go on if that is not so (root, or any capability left in its
// effective, permitted or bounding set), and stacks a seccomp filter that
// makes the calls no part of it needs fail with EPERM: loading modules or a
// kernel, reboot, swap, the clock, ptrace and reading other processes'
// memory, BPF and perf, the kernel's keyrings, userfaultfd, io_uring, file
// handles, raw I/O ports. The jail the node starts for sealed tools
// (user, mount and PID namespaces, pivot_root, its own seccomp stages) keeps
// every call it makes, and its own filter stacks on this one.
//
// REQUIRES: called before the node starts its threads (TSYNC covers those
// that exist, but the check of the process's facts is for this thread).
#pragma once

#include <span>

#include "core/result.h"

namespace volent::boot {

// The calls the node's filter refuses (EPERM), for the tests.
std::span<const char* const> NodeDeniedSyscalls();

// Checks the process's facts, sets PR_SET_NO_NEW_PRIVS, loads the filter;
// on success returns the line the node prints: its uid, gid, capability
// sets, no_new_privs and seccomp mode as /proc/self/status says after.
core::Result<std::string> LockDownNode();

}  // namespace volent::boot
