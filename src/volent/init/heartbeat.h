// The heartbeat: the line that says PID 1 is alive, with the time since the
// kernel started. CLOCK_BOOTTIME rather than CLOCK_MONOTONIC so that the
// number stays the time since boot even across a suspend; it is what the
// boot measurement (docs/image.md) and the boot test read.
//
//   volent-init: heartbeat 1.873
#pragma once

#include <time.h>

#include <string>

#include "core/result.h"

namespace volent::init {

// Seconds between heartbeats once the init has nothing else to do.
inline constexpr int kHeartbeatSeconds = 10;

// "heartbeat S.mmm": `since_boot` in seconds with milliseconds.
std::string HeartbeatLine(const timespec& since_boot);

// CLOCK_BOOTTIME now, or what failed.
core::Result<timespec> SinceBoot();

}  // namespace volent::init
