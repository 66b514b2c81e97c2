// The one reader of the kernel's device-mapper status (DM_TABLE_STATUS on
// /dev/mapper/control): used by the sealed image's PID 1 (verity.h) to record
// what the kernel says about its verified root, and by the node's
// attestation (attest/platform_facts.h) when the node may ask the kernel
// itself. libc only, so that the static PID 1 links it.
//
// The ioctl needs CAP_SYS_ADMIN. The image's node runs without it
// (docs/decisions/0050-image-env-and-node-user.md): PID 1 reads the status
// and hands it over in the boot record.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace volent::init {

// A device-mapper device as the kernel describes it: its device number and
// each target's type, table parameters and status.
struct DmTarget {
  std::string type;    // "verity", "linear", ...
  std::string table;   // the table's parameters
  std::string status;  // the target's status ("V" or "C" for verity)
};
struct DmDevice {
  uint32_t major = 0, minor = 0;
  std::vector<DmTarget> targets;
};

// The kernel's account of the device-mapper device `name`, through `control`
// (which must be the device-mapper's control node, character device 10:236,
// not a file or another driver put in its place). Errors: no such device, no
// device-mapper, no permission (the error's kind is then kUnavailable).
core::Result<DmDevice> ReadDmDevice(const std::string& name, const std::string& control = "/dev/mapper/control");

}  // namespace volent::init
