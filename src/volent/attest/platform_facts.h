// What the node reads about the machine it runs on, for its attestation
// report (docs/attestation.md): each read once, bounded, through the one
// safe file reader, and reported as found. A fact that cannot be read is
// "unknown" (or null) with no guess.
//
// Thread-safe: no state; the paths are parameters so that tests can point
// them at a fake /sys.
#pragma once

#include <string>

#include "core/result.h"

namespace volent::attest {

// The UEFI Secure Boot state from the SecureBoot variable under
// `efivars_dir`: "enabled" or "disabled"; "not-efi" when the firmware is not
// UEFI (no `efi_dir`); "unknown" when the variable cannot be read.
std::string SecureBootState(const std::string& efi_dir = "/sys/firmware/efi",
                            const std::string& efivars_dir = "/sys/firmware/efi/efivars");

// SHA-256 (hex) of the running program's file, read through /proc/self/exe.
ampoule::Result<std::string> OwnBinarySha256();

// The kernel's id of this boot (/proc/sys/kernel/random/boot_id): the
// node's measurements in its PCR belong to one boot.
ampoule::Result<std::string> BootId(const std::string& path = "/proc/sys/kernel/random/boot_id");

}  // namespace volent::attest
