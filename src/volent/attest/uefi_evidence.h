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
//
// The full-chain profile (docs/attestation.md) is both, with the UKI's
// command line the one this kernel was given, naming the verity root the
// kernel checks. Pure; thread-safe.
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
};

UefiEvidence ReadUefiEvidence(const std::vector<LoggedEvent>& events);

// Whether `evidence` shows the full-chain profile for a kernel whose command
// line is `cmdline` (/proc/cmdline, without its final newline) and whose
// verity root has `roothash`: Secure Boot on, a UKI whose measured command
// line is exactly `cmdline`, and `cmdline` naming volent.roothash=`roothash`.
// `why` says what is missing when it does not.
bool ShowsFullChain(const UefiEvidence& evidence, std::string_view cmdline, std::string_view roothash,
                    std::string* why);

}  // namespace volent::attest
