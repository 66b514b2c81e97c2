#include "volent/init/power.h"

#include <errno.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include <string>

#include "core/errno_text.h"

namespace volent::init {

core::Status PowerOff() {
  sync();  // reboot(2) does not flush; nothing is written yet, but /data will be
  reboot(RB_POWER_OFF);
  return core::Error{std::string("reboot(RB_POWER_OFF): ") + core::ErrnoText()};
}

}  // namespace volent::init
