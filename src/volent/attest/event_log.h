// The platform's TPM event log (TCG PC Client Platform Firmware Profile,
// "crypto agile" format: the log the firmware and boot loaders keep of what
// they extended, as the kernel exposes it in
// /sys/kernel/security/tpm0/binary_bios_measurements), replayed into the
// sha256 values of the PCRs it extends, so that a verifier can hold it
// against a quote.
//
// Layout: a first event in the old SHA-1 form (PCR index, type, 20-byte
// digest, size, data) whose data is the "Spec ID Event03" structure naming
// each algorithm's digest size; then TCG_PCR_EVENT2 records (PCR index,
// type, a count of (algorithm id, digest), size, data). All integers are
// little-endian. EV_NO_ACTION events are not extended; the StartupLocality
// one sets PCR 0's starting value to the locality.
//
// Pure: no I/O, no TPM. Every byte is untrusted: a log that is truncated,
// inconsistent or over the limits is an error naming the event and what is
// wrong, never a crash. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace volent::attest {

// The most events a log may hold (a real one holds a few hundred).
inline constexpr size_t kMaxLogEvents = 100'000;

// One event the log extends a PCR with: what the profile checks read
// (uefi_evidence.h). `data` is a view into the log given to ReplayEventLog.
struct LoggedEvent {
  uint32_t pcr = 0;
  uint32_t type = 0;
  std::array<uint8_t, 32> sha256{};
  std::string_view data;
};

struct EventLogReplay {
  std::map<uint32_t, std::array<uint8_t, 32>> pcrs;  // each PCR the log extends, as the log says it ends
  size_t events = 0;                                  // events read, EV_NO_ACTION included
  std::vector<LoggedEvent> extended;                  // the events that extend a PCR, in order
};

core::Result<EventLogReplay> ReplayEventLog(std::string_view log);

}  // namespace volent::attest
