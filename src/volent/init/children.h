// Reaping: PID 1 becomes the parent of every orphaned process, and a child
// nobody waits for stays a zombie forever. volent-init starts no child yet
// (supervising the node is a later step), but whatever the kernel or a
// future child leaves behind is reaped from the start.
//
// SIGCHLD is blocked and taken synchronously with sigtimedwait, so the init
// has no signal handler and no reentrancy to reason about.
#pragma once

#include "core/result.h"

namespace volent::init {

// Blocks SIGCHLD for the (single-threaded) process; children inherit the
// mask, so a child that needs it must unblock it.
ampoule::Status BlockChildSignal();

// Waits for every child that has exited, without blocking. Returns how many.
int ReapChildren();

// Sleeps until a child changes state or `timeout_ms` has passed.
// REQUIRES: BlockChildSignal() succeeded.
void WaitForChild(long timeout_ms);

}  // namespace volent::init
