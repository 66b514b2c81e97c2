// What the node measures into a PCR of its own before it serves
// (docs/attestation.md, "What the node measures"): its binary, its egress
// allowlist and the Ampoule kernel it runs tools on, each as one event
// (kind, SHA-256) extended into the PCR and logged, so that a quote binds
// them and a verifier can replay the log to the quoted value.
//
// A PCR is reset only by a reboot, so a node started twice in one boot
// extends the same PCR twice: the log is kept in the data folder with the
// boot's id, and a restart in the same boot appends to it. When the log
// does not replay to the PCR as found (another program extended it, or the
// log was lost), the report says the earlier history is unknown
// (`prior_unknown`), and a verifier's replay of the node's PCR fails: the
// node never rewrites a history it cannot show.
//
// Thread-compatible: called once, at start.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "volent/attest/tpm.h"

namespace volent::attest {

struct NodeEvent {
  std::string kind;                  // volent-binary, egress-allowlist, ampoule-kernel
  std::array<uint8_t, 32> sha256{};  // what was extended
};

struct NodePcrLog {
  uint32_t pcr = 0;
  bool prior_unknown = false;     // the PCR held extends the log cannot account for
  std::vector<NodeEvent> events;  // every event of this boot, in extend order
};

// Extends `pcr` with each of `events` (in order) and returns the log of this
// boot, kept in `log_path` (JSON, replaced whole) for the next start.
Result<NodePcrLog> MeasureNode(Tpm& tpm, uint32_t pcr, const std::vector<NodeEvent>& events,
                               const std::string& log_path, const std::string& boot_id);

// The log as the report carries it: {"pcr", "prior_unknown", "events":
// [{"kind", "sha256"}]}, and back (errors name what is wrong).
nlohmann::json NodePcrLogJson(const NodePcrLog& log);
Result<NodePcrLog> NodePcrLogFromJson(const nlohmann::json& json);

}  // namespace volent::attest
