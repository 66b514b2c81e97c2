// The verified root: a dm-verity device over the root disk, made by PID 1
// with the device-mapper's ioctls before anything from the disk is read.
//
// The table carries panic_on_corruption: a block whose hash does not match
// the tree panics the kernel the moment it is read, whoever reads it (a
// mount, the node's loader, a tool). A wrong root hash or a flipped block
// therefore halts the machine; nothing goes on with unverified bytes.
// Kernel documentation: admin-guide/device-mapper/verity.rst.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"
#include "volent/init/cmdline.h"

namespace volent::init {

// The name of the device under /dev/mapper (shown by the kernel's messages).
inline constexpr char kVerityName[] = "volent-root";

// The dm-verity table's parameter string for `root`: format 1, data and
// hash tree on root.device, 4096-byte blocks, sha256, panic_on_corruption.
std::string VerityTable(const VerityRoot& root);

// Creates, loads (read-only) and resumes kVerityName with VerityTable(root).
// Returns the device's node ("/dev/dm-N"). A failure removes what was made.
core::Result<std::string> CreateVerityDevice(const VerityRoot& root);

// Reads every block of `device` once, so that dm-verity checks the whole
// root before anything from it runs: a flipped block anywhere panics the
// kernel here, not later in the middle of the node's life. The blocks stay
// in the page cache, so the node's own reads of them cost nothing more.
core::Status ReadEveryBlock(const std::string& device);

// The kernel's view of the running device: its table's parameters, its
// status ("V" verified so far, "C" a corruption seen) and its device number,
// as DM_TABLE_STATUS gives them (device_mapper.h, the one reader). What the
// boot record and the checks compare with the command line.
struct VerityStatus {
  std::string table;
  std::string status;
  uint32_t major = 0, minor = 0;
};
core::Result<VerityStatus> ReadVerityStatus();

}  // namespace volent::init
