#include "volent/init/power.h"

#include <errno.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include <string>

namespace volent::init {

ampoule::Status PowerOff() {
  sync();  // reboot(2) does not flush; nothing is written yet, but /data will be
  reboot(RB_POWER_OFF);
  return ampoule::Error{std::string("reboot(RB_POWER_OFF): ") + strerror(errno)};
}

}  // namespace volent::init
