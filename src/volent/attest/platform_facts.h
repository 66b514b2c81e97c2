// What the node reads about the machine it runs on, for its attestation
// report (docs/attestation.md): each read once, bounded, through the one
// safe file reader, and reported as found. A fact that cannot be read is
// "unknown" (or null) with no guess.
//
// Thread-safe: no state; the paths are parameters so that tests can point
// them at a fake /sys.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace volent::attest {

// The UEFI Secure Boot state from the SecureBoot variable under
// `efivars_dir`: "enabled" or "disabled"; "not-efi" when the firmware is not
// UEFI (no `efi_dir`); "unknown" when the variable cannot be read.
std::string SecureBootState(const std::string& efi_dir = "/sys/firmware/efi",
                            const std::string& efivars_dir = "/sys/firmware/efi/efivars");

// How the machine booted, for the report's "boot" section.
struct BootFacts {
  std::string profile = "unsealed";        // or verity-only
  nlohmann::json verity_roothash = nullptr;  // hex, with verity-only
  std::string why;                         // why unsealed, when a record was found but not believed
};

// The sealed image's boot record, written by its PID 1 (src/volent/init/
// boot_record.h) at `record_path`, believed only when the machine agrees:
// the record says verity-only with a root hash, a verified status and a
// table carrying that hash, AND `mountinfo_path` shows / as a read-only
// squashfs on the device-mapper device named volent-root (`sys_dev_block`
// names it). Anything else is unsealed: no record is the ordinary host; a
// record the machine contradicts says why.
BootFacts ReadBootFacts(const std::string& record_path = "/run/volent/boot.json",
                        const std::string& mountinfo_path = "/proc/self/mountinfo",
                        const std::string& sys_dev_block = "/sys/dev/block");

// SHA-256 (hex) of the running program's file, read through /proc/self/exe.
ampoule::Result<std::string> OwnBinarySha256();

// The kernel's id of this boot (/proc/sys/kernel/random/boot_id): the
// node's measurements in its PCR belong to one boot.
ampoule::Result<std::string> BootId(const std::string& path = "/proc/sys/kernel/random/boot_id");

}  // namespace volent::attest
