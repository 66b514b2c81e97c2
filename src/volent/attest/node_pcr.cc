#include "volent/attest/node_pcr.h"

#include "core/file_read.h"
#include "core/file_write.h"
#include "core/hex.h"
#include "core/json.h"
#include "volent/attest/quote_verify.h"

namespace volent::attest {
namespace {

constexpr size_t kMaxLogBytes = size_t{1} << 20;
constexpr size_t kMaxEvents = 4096;

std::string Hex(const std::array<uint8_t, 32>& digest) {
  return ampoule::core::HexEncode(std::span<const uint8_t>(digest));
}

std::vector<std::array<uint8_t, 32>> Digests(const std::vector<NodeEvent>& events) {
  std::vector<std::array<uint8_t, 32>> out;
  for (const NodeEvent& e : events) out.push_back(e.sha256);
  return out;
}

// This boot's earlier events, from the log file: none when there is no log,
// or when it belongs to another boot.
std::vector<NodeEvent> EarlierEvents(const std::string& log_path, const std::string& boot_id, uint32_t pcr) {
  auto text = ampoule::core::ReadFileCapped(log_path, kMaxLogBytes, nullptr,
                                            {.from = ampoule::core::PathFrom::kUntrusted});
  if (!text) return {};
  auto json = ampoule::ParseJsonBounded(*text, log_path, {kMaxLogBytes});
  if (!json || !json->is_object() || json->value("boot_id", "") != boot_id) return {};
  auto log = NodePcrLogFromJson(json->value("log", nlohmann::json()));
  if (!log || log->pcr != pcr || log->prior_unknown) return {};
  return log->events;
}

}  // namespace

Result<NodePcrLog> MeasureNode(Tpm& tpm, uint32_t pcr, const std::vector<NodeEvent>& events,
                               const std::string& log_path, const std::string& boot_id) {
  const uint32_t index[] = {pcr};
  auto found = tpm.ReadPcrs(index);
  if (!found) return found.error();
  NodePcrLog log;
  log.pcr = pcr;
  log.events = EarlierEvents(log_path, boot_id, pcr);
  if (ReplayPcr(Digests(log.events)) != found->at(0).sha256) {
    // Not what this boot's log explains: say so rather than guess.
    log.events.clear();
    log.prior_unknown = found->at(0).sha256 != std::array<uint8_t, 32>{};
  }
  for (const NodeEvent& e : events) {
    if (log.events.size() == kMaxEvents) return ampoule::Error{"the node's PCR log is full (restarted too often)"};
    AMP_RETURN_IF_ERROR(tpm.Extend(pcr, e.sha256));
    log.events.push_back(e);
  }
  const nlohmann::json saved = {{"boot_id", boot_id}, {"log", NodePcrLogJson(log)}};
  AMP_RETURN_IF_ERROR(ampoule::core::WriteFileAtomically(log_path, ampoule::DumpJson(saved, 2) + "\n", 0600));
  return log;
}

nlohmann::json NodePcrLogJson(const NodePcrLog& log) {
  nlohmann::json events = nlohmann::json::array();
  for (const NodeEvent& e : log.events) events.push_back({{"kind", e.kind}, {"sha256", Hex(e.sha256)}});
  return {{"pcr", log.pcr}, {"prior_unknown", log.prior_unknown}, {"events", std::move(events)}};
}

Result<NodePcrLog> NodePcrLogFromJson(const nlohmann::json& json) {
  const ampoule::Error bad{"the node's PCR log is not {\"pcr\", \"prior_unknown\", \"events\": [{\"kind\", \"sha256\"}]}",
                           ampoule::ErrorKind::kInvalidArgument};
  if (!json.is_object() || !json.contains("pcr") || !json["pcr"].is_number_unsigned() ||
      json["pcr"].get<uint64_t>() >= kPcrCount || !json.contains("prior_unknown") ||
      !json["prior_unknown"].is_boolean() || !json.contains("events") || !json["events"].is_array() ||
      json["events"].size() > kMaxEvents) {
    return bad;
  }
  NodePcrLog log;
  log.pcr = json["pcr"].get<uint32_t>();
  log.prior_unknown = json["prior_unknown"].get<bool>();
  for (const nlohmann::json& e : json["events"]) {
    if (!e.is_object() || !e.contains("kind") || !e["kind"].is_string() || !e.contains("sha256") ||
        !e["sha256"].is_string() || !ampoule::core::IsLowerHex(e["sha256"].get<std::string>(), 32)) {
      return bad;
    }
    NodeEvent event;
    event.kind = e["kind"].get<std::string>();
    auto raw = ampoule::core::HexDecode(e["sha256"].get<std::string>(), "sha256");
    if (!raw || raw->size() != 32) return bad;
    std::copy(raw->begin(), raw->end(), event.sha256.begin());
    log.events.push_back(std::move(event));
  }
  return log;
}

}  // namespace volent::attest
