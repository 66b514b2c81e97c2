// What a UEFI boot's own measurements show about how it booted, read from
// the platform's event log (event_log.h) after it has been replayed: the
// report's verifier holds that log against the TPM's signed quote, so these
// facts are as good as the quote, never a file the node could write.
//
//   secure_boot_on   PCR 7 holds the firmware's EV_EFI_VARIABLE_DRIVER_CONFIG
//                    event for SecureBoot (EFI_GLOBAL_VARIABLE) with the
//                    value 1: the firmware enforced signatures on what it
//                    started
//   uki_cmdline      PCR 11 holds systemd's stub events for a unified kernel
//                    image (EV_IPL, the section name ".cmdline" then its
//                    bytes): the SHA-256 of the command line the signed UKI
//                    carried
//   grub_kernel_cmdline  PCR 8 holds GRUB's "kernel_cmdline: ..." event:
//                    the command line GRUB (started by shim) gave the kernel
//   secure_boot_keys whether the db certificate the firmware verified the
//                    boot with is one of the image build's dev-only keys
//
// The full-chain profile (docs/attestation.md) is Secure Boot and the UKI's
// command line, the one this kernel was given, naming the verity root the
// kernel checks; shim-chain is Secure Boot and GRUB's measured command line
// doing the same. Pure; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "volent/attest/event_log.h"

namespace volent::attest {

struct UefiEvidence {
  bool secure_boot_on = false;
  std::optional<std::array<uint8_t, 32>> uki_cmdline;
  // GRUB's PCR 8 event "kernel_cmdline: PATH ARGS" (EV_IPL), when its digest
  // is the SHA-256 of "PATH ARGS": the text is then what was measured.
  std::optional<std::string> grub_kernel_cmdline;
  // The firmware's first EV_EFI_VARIABLE_AUTHORITY for db in PCR 7: the db
  // entry (owner GUID, certificate) that let the first boot application
  // run. dev-only when its certificate's name says "dev-only" (the image
  // build's keys, scripts/image/uefi.sh), else not-dev-only.
  std::optional<std::string> secure_boot_keys;
};

UefiEvidence ReadUefiEvidence(const std::vector<LoggedEvent>& events);

// Whether `evidence` shows the full-chain profile for a kernel whose command
// line is `cmdline` (/proc/cmdline, without its final newline) and whose
// verity root has `roothash`: Secure Boot on, a UKI whose measured command
// line is exactly `cmdline`, and `cmdline` naming volent.roothash=`roothash`.
// `why` says what is missing when it does not.
bool ShowsFullChain(const UefiEvidence& evidence, std::string_view cmdline, std::string_view roothash,
                    std::string* why);

// Whether `evidence` shows the shim-chain profile: Secure Boot on, GRUB's
// measured kernel command line "PATH ARGS" the one this kernel was given
// (GRUB passes it as "BOOT_IMAGE=PATH ARGS"), naming volent.roothash=`roothash`.
bool ShowsShimChain(const UefiEvidence& evidence, std::string_view cmdline, std::string_view roothash,
                    std::string* why);

}  // namespace volent::attest
