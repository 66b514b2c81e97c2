// The report's "tpm" section (docs/attestation.md): a quote of PCRs 0-15
// bound to the verifier's nonce, the attestation key that signed it, and the
// node's own PCR log; or, without a TPM, {"present": false, "reason"} and no
// PCR claim at all.
//
//   {"present": true,
//    "ak": {"public": B64 TPM2B_PUBLIC, "pem": PEM, "name": HEX},
//    "quote": {"attest": B64 TPMS_ATTEST, "signature": B64 TPMT_SIGNATURE,
//              "pcrs": {"0": HEX, ..., "15": HEX}},
//    "ek": {"public": B64 TPM2B_PUBLIC},
//    "node": {"format": 2, "pcr": 15, "prior_unknown": false,
//             "events": [{"kind", "sha256"}], "documents": {HEX: JSON}} (node_pcr.h),
//    "event_log": B64 or null, "event_log_reason": TEXT (when null)}
//
// Thread-compatible (the Tpm is used by one thread at a time).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "volent/attest/node_pcr.h"
#include "volent/attest/quote.h"
#include "volent/attest/tpm.h"

namespace volent::attest {

// The PCRs a report quotes: every PCR an operating system and its boot chain
// use (firmware 0-7, boot loader and kernel 8-15, the node's own among them).
inline constexpr uint32_t kQuotedPcrs[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// The section for a machine without a usable TPM.
nlohmann::json NoTpmSection(const std::string& reason);

// Quotes kQuotedPcrs with `nonce` (raw bytes) and assembles the section.
// `event_log` is the platform's TCG event log (raw bytes), or "" with
// `event_log_reason` saying why there is none.
Result<nlohmann::json> TpmSection(Tpm& tpm, const std::string& nonce, const NodePcrLog& node_log,
                                  const std::string& event_log, const std::string& event_log_reason);

// What a verifier reads back from a section with "present": true.
struct TpmEvidence {
  Quote quote;
  std::string ak_name;      // raw bytes, as the section names the AK
  NodePcrLog node_log;
  std::string event_log;    // raw bytes; "" when none
};
Result<TpmEvidence> ReadTpmSection(const nlohmann::json& section);

}  // namespace volent::attest
