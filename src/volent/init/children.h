// Signals and children of PID 1. PID 1 becomes the parent of every orphaned
// process, and a child nobody waits for stays a zombie forever, so every
// child is reaped, the node's exit included (supervisor.h decides what to
// do about that one).
//
// The signals PID 1 acts on are blocked and taken synchronously with
// sigtimedwait, so the init has no signal handler and no reentrancy to
// reason about:
//   SIGCHLD  a child changed state: reap
//   SIGTERM  power off (stop the node, flush /data, power down)
//   SIGINT   reboot (the kernel's Ctrl-Alt-Del, once RB_DISABLE_CAD is set)
#pragma once

#include <sys/types.h>

#include <functional>

#include "core/result.h"

namespace volent::init {

// Blocks the signals above for the (single-threaded) process and makes
// Ctrl-Alt-Del a SIGINT. Children inherit the mask: Spawn clears it.
core::Status BlockSignals();

// Waits for every child that has exited, without blocking, calling
// `exited(pid, wait status)` for each. Returns how many.
int ReapChildren(const std::function<void(pid_t, int)>& exited = {});

// Sleeps until one of the blocked signals arrives or `timeout_ms` has
// passed. Returns the signal, or 0 on the timeout.
// REQUIRES: BlockSignals() succeeded.
int WaitForSignal(long timeout_ms);

// Milliseconds of CLOCK_BOOTTIME (0 if it cannot be read).
long NowMs();

}  // namespace volent::init
