// What the node reads about the machine it runs on, for its attestation
// report (docs/attestation.md): each read once, bounded, through the one
// safe file reader, and reported as found. A fact that cannot be read is
// "unknown" (or null) with no guess.
//
// Thread-safe: no state; the paths and kernel readers are parameters so
// that tests can point them at a fake machine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "volent/attest/process_facts.h"
#include "volent/init/device_mapper.h"

namespace volent::attest {

// The UEFI Secure Boot state from the SecureBoot variable under
// `efivars_dir`: "enabled" or "disabled"; "not-efi" when the firmware is not
// UEFI (no `efi_dir`); "unknown" when the variable cannot be read.
std::string SecureBootState(const std::string& efi_dir = "/sys/firmware/efi",
                            const std::string& efivars_dir = "/sys/firmware/efi/efivars");

// How the machine booted, for the report's "boot" section.
struct BootFacts {
  std::string profile = "unsealed";        // or verity-only
  nlohmann::json verity_roothash = nullptr;  // hex, with verity-only: the kernel's, from its device-mapper table
  std::string why;                         // why unsealed, when a record was found but not believed
};

// The kernel's device-mapper devices, through the one reader
// (volent/init/device_mapper.h, shared with the image's PID 1).
using DmTarget = init::DmTarget;
using DmDevice = init::DmDevice;
using init::ReadDmDevice;

// The file system at `root` as the kernel describes it (stat and statfs of
// the directory, never a text a mount namespace can replace).
struct RootFs {
  uint32_t major = 0, minor = 0;  // the device it is on
  bool squashfs = false;
  bool read_only = false;
};
core::Result<RootFs> StatRoot(const std::string& root = "/");

// Where ReadBootFacts looks; the defaults are the machine's own, tests
// replace them.
struct BootSources {
  std::string record_path = "/run/volent/boot.json";
  std::string proc_devices = "/proc/devices";
  std::function<core::Result<RootFs>()> root;                       // null: StatRoot("/")
  std::function<core::Result<DmDevice>(const std::string&)> dm;     // null: ReadDmDevice
  // This process's user and capabilities: whether it may ask the kernel
  // itself (CAP_SYS_ADMIN) or takes PID 1's answer from the record.
  std::function<core::Result<ProcessFacts>()> process;  // null: ReadProcessFacts()
};

// The sealed image's boot record (written by its PID 1, src/volent/init/
// boot_record.h) says verity-only; it is believed only when the kernel
// agrees: / is a read-only squashfs on a block device whose major number
// /proc/devices gives to device-mapper, the kernel's device-mapper device
// volent-root is that very device, with one verity target, status V, whose
// table carries the root hash (the one reported, taken from the kernel's
// table, never from the record's "roothash").
//
// Who asks the kernel: a node that holds CAP_SYS_ADMIN asks it itself
// (DM_TABLE_STATUS) and the record only names what to look for. The image's
// node holds no capability (docs/decisions/0050-image-env-and-node-user.md):
// there PID 1 asked the kernel and wrote its answer into the record
// ("verity_device", "verity_table", "verity_status"), and the node takes
// that answer only from a record it cannot have written itself: the node
// not root, the record and its folder owned by root and writable by root
// alone. The checks the node can make unprivileged (/ a read-only squashfs
// on that very device-mapper device) stay. Anything else is unsealed: no record is
// the ordinary host; a record the kernel contradicts says why. Root on a
// host can still make a real verity device and run the node over it: the
// profile is then true of the files the node runs from, and proves nothing
// about the rest of the host (docs/attestation.md).
BootFacts ReadBootFacts(const BootSources& sources = {});

// The facts of the boot section that rest only on a file the node read and
// a root user could fake in a mount namespace of its own: the report lists
// them as self-asserted ("boot"."self_asserted").
inline const std::vector<std::string> kSelfAssertedBootFacts = {"secure_boot", "modules_disabled"};

// SHA-256 (hex) of the running program's file, read through /proc/self/exe.
core::Result<std::string> OwnBinarySha256();

// The kernel's id of this boot (/proc/sys/kernel/random/boot_id): the
// node's measurements in its PCR belong to one boot.
core::Result<std::string> BootId(const std::string& path = "/proc/sys/kernel/random/boot_id");

}  // namespace volent::attest
