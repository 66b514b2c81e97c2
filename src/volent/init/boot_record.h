// The boot record: what PID 1 set up, for the node to report. Written once,
// after the switch into the verified root, to /run/volent/boot.json (a
// tmpfs; the folder root's, 0755, the file 0444):
//
//   {"profile": "verity-only", "roothash": HEX, "root_device": "/dev/vda",
//    "verity_table": "...", "verity_status": "V", "verity_device": "254:0",
//    "init": "volent-init"}
//
// verity_table, verity_status and verity_device are the kernel's
// (DM_TABLE_STATUS, device_mapper.h), read back after the device was made,
// not what the init asked for. The node's attestation
// (attest/platform_facts.h) reads this file; without it the node reports the
// unsealed profile. The image's node runs without CAP_SYS_ADMIN and cannot
// ask the kernel itself: the kernel's answer here is what it reports, and
// the node's user cannot write the file or its folder.
#pragma once

#include <string>

#include "core/result.h"
#include "volent/init/cmdline.h"
#include "volent/init/verity.h"

namespace volent::init {

inline constexpr char kBootRecordPath[] = "/run/volent/boot.json";

// The record's JSON text.
std::string BootRecordJson(const VerityRoot& root, const VerityStatus& status);

// Writes BootRecordJson to kBootRecordPath (its folder made if missing).
core::Status WriteBootRecord(const VerityRoot& root, const VerityStatus& status);

// The platform's TPM event log, as the kernel exposes it (root's alone,
// 0440), copied for the node's user to /run/volent/tpm-event-log (root's,
// 0444) once WriteBootRecord made the folder. Nothing rests on the copy
// being honest: the report's verifier replays the log against the TPM's
// signed quote. No log (no TPM, or a firmware that keeps none) is not an
// error: nothing is written and the node's report says why.
inline constexpr char kEventLogPath[] = "/sys/kernel/security/tpm0/binary_bios_measurements";
inline constexpr char kEventLogCopyPath[] = "/run/volent/tpm-event-log";
inline constexpr size_t kMaxEventLog = 1 << 20;
core::Status CopyEventLog(const std::string& from = kEventLogPath, const std::string& to = kEventLogCopyPath);

}  // namespace volent::init
