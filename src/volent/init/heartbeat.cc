#include "volent/init/heartbeat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/errno_text.h"

namespace volent::init {

std::string HeartbeatLine(const timespec& since_boot) {
  char buf[64];
  snprintf(buf, sizeof buf, "heartbeat %lld.%03ld", static_cast<long long>(since_boot.tv_sec),
           since_boot.tv_nsec / 1000000);
  return buf;
}

core::Result<timespec> SinceBoot() {
  timespec now{};
  if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) {
    return core::Error{std::string("clock_gettime(CLOCK_BOOTTIME): ") + core::ErrnoText()};
  }
  return now;
}

}  // namespace volent::init
