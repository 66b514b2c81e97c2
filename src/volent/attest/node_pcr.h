// What the node measures into a PCR of its own before it serves
// (docs/attestation.md, "What the node measures"), and what a start is in
// that PCR's log, so that a verifier can replay it to a quote and judge
// every start of this boot.
//
// A start is a fixed sequence of events, in this order:
//   node-start        the marker: SHA-256 of {"boot_id", "format"}
//   volent-binary     SHA-256 of the node's binary
//   egress-allowlist  SHA-256 of the allowlist's canonical JSON
//   node-trust        SHA-256 of the trust configuration's canonical JSON
//                     (where requests go and whom the node trusts, trust.h)
//   ampoule-kernel    SHA-256 of the Ampoule kernel (only when there is one)
// Each event is extended as ExtendedDigest(event): SHA-256 over a versioned,
// domain-separated encoding of its kind and digest, so that an event cannot
// be given another kind without changing the PCR. A log whose events do not
// parse as whole starts (an event before the first marker, out of order, a
// start cut short, an extra event after the last start) is refused by
// SplitStarts. The documents an event's digest is of (the allowlist, the
// trust configuration, the marker) are kept beside the events, once each,
// so that a verifier can judge every start, not only the last.
//
// A PCR is reset only by a reboot, so a node started twice in one boot
// extends the same PCR twice: the log is kept in the data folder with the
// boot's id, and a restart in the same boot appends to it. When the log
// does not replay to the PCR as found (another program extended it, or the
// log was lost, or it is of an older format), the report says the earlier
// history is unknown (`prior_unknown`), and a verifier's check of the
// node's PCR fails until the machine reboots: the node never rewrites a
// history it cannot show.
//
// Thread-compatible: called once, at start.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "volent/attest/tpm.h"

namespace volent::attest {

// The format of the log (and of what each event extends): 2 binds each
// event's kind into the PCR. Format 1 (kind not bound) is refused.
inline constexpr int kNodeLogFormat = 2;

// The event kinds, in the order a start extends them.
inline constexpr std::string_view kStartEvent = "node-start";
inline constexpr std::string_view kBinaryEvent = "volent-binary";
inline constexpr std::string_view kAllowlistEvent = "egress-allowlist";
inline constexpr std::string_view kTrustEvent = "node-trust";
inline constexpr std::string_view kKernelEvent = "ampoule-kernel";

// Whether `kind` is one of the above.
bool IsNodeEventKind(std::string_view kind);

struct NodeEvent {
  std::string kind;                  // one of the kinds above
  std::array<uint8_t, 32> sha256{};  // the digest measured
};

// What the PCR is extended with for `event`:
//   SHA-256("volent.node-event.v2" || 0x00 || len(kind) as one byte || kind || sha256)
std::array<uint8_t, 32> ExtendedDigest(const NodeEvent& event);

// The hex SHA-256 of a document's canonical JSON (core/json.h DumpJson):
// what an event measures of the allowlist, the trust configuration and the
// start marker.
std::string DocumentDigest(const nlohmann::json& document);

// The PCR value a list of events gives from zero.
std::array<uint8_t, 32> ReplayNodeEvents(const std::vector<NodeEvent>& events);

struct NodePcrLog {
  uint32_t pcr = 0;
  bool prior_unknown = false;     // the PCR held extends the log cannot account for
  std::vector<NodeEvent> events;  // every event of this boot, in extend order
  // The JSON documents events measured, by the hex SHA-256 of their
  // canonical JSON (core/json.h DumpJson): the allowlists, trust
  // configurations and start markers of this boot.
  std::map<std::string, nlohmann::json> documents;
};

// One start, as SplitStarts reads it from a log.
struct NodeStart {
  std::string volent_sha256;      // hex
  nlohmann::json allowlist;       // the document measured
  std::string allowlist_sha256;   // hex
  nlohmann::json trust;           // the document measured
  std::string trust_sha256;       // hex
  std::string kernel_sha256;      // hex; "" when the start measured no kernel
};

// The starts of `log`, in order, or an error naming the event that breaks
// the sequence (or a document the log does not carry).
Result<std::vector<NodeStart>> SplitStarts(const NodePcrLog& log);

// The documents a start measures (the allowlist and the trust
// configuration): the digests are of their canonical JSON.
struct StartDocuments {
  std::string volent_sha256;      // hex
  nlohmann::json allowlist;
  nlohmann::json trust;
  std::string kernel_sha256;      // hex; "" for none
};

// Extends `pcr` with one start (the marker, then each event) and returns
// the log of this boot, kept in `log_path` (JSON, replaced whole) for the
// next start. `start` null: reads the log only (`volent attest`).
Result<NodePcrLog> MeasureNode(Tpm& tpm, uint32_t pcr, const StartDocuments* start, const std::string& log_path,
                               const std::string& boot_id);

// The log as the report carries it: {"format": 2, "pcr", "prior_unknown",
// "events": [{"kind", "sha256"}], "documents": {HEX: JSON}}, and back
// (errors name what is wrong: an unknown kind, an older format, a document
// whose digest is not its key).
nlohmann::json NodePcrLogJson(const NodePcrLog& log);
Result<NodePcrLog> NodePcrLogFromJson(const nlohmann::json& json);

}  // namespace volent::attest
