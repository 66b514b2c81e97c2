#include "volent/attest/node_pcr.h"

#include <set>

#include "core/file_read.h"
#include "core/file_write.h"
#include "core/hex.h"
#include "core/json.h"
#include "core/sha256.h"
#include "volent/attest/quote_verify.h"

namespace volent::attest {
namespace {

using core::Error;
using core::ErrorKind;

// A log holds a few events per start and one allowlist and one trust
// configuration per distinct value: far below these.
constexpr size_t kMaxLogBytes = size_t{8} << 20;
constexpr size_t kMaxEvents = 4096;
constexpr size_t kMaxDocuments = 1024;

constexpr std::string_view kDomain = "volent.node-event.v2";

std::string Hex(const std::array<uint8_t, 32>& digest) {
  return core::HexEncode(std::span<const uint8_t>(digest));
}

std::array<uint8_t, 32> Raw(const std::string& hex) {
  std::array<uint8_t, 32> out{};
  auto raw = core::HexDecode(hex, "digest");
  if (raw && raw->size() == 32) std::copy(raw->begin(), raw->end(), out.begin());
  return out;
}

// This boot's earlier log, from the file: empty when there is none, when it
// belongs to another boot or is of another format.
NodePcrLog EarlierLog(const std::string& log_path, const std::string& boot_id, uint32_t pcr) {
  NodePcrLog none;
  none.pcr = pcr;
  auto text = core::ReadFileCapped(log_path, kMaxLogBytes, nullptr,
                                            {.from = core::PathFrom::kUntrusted});
  if (!text) return none;
  auto json = core::ParseJsonBounded(*text, log_path, {kMaxLogBytes});
  if (!json || !json->is_object() || json->value("boot_id", "") != boot_id) return none;
  auto log = NodePcrLogFromJson(json->value("log", nlohmann::json()));
  if (!log || log->pcr != pcr || log->prior_unknown) return none;
  return *log;
}

}  // namespace

bool IsNodeEventKind(std::string_view kind) {
  return kind == kStartEvent || kind == kBinaryEvent || kind == kAllowlistEvent || kind == kTrustEvent ||
         kind == kKernelEvent;
}

std::string DocumentDigest(const nlohmann::json& document) {
  return core::Sha256Hex(core::DumpJson(document));
}

std::array<uint8_t, 32> ExtendedDigest(const NodeEvent& event) {
  std::string bytes(kDomain);
  bytes.push_back('\0');
  bytes.push_back(static_cast<char>(static_cast<uint8_t>(event.kind.size())));
  bytes += event.kind;
  bytes.append(reinterpret_cast<const char*>(event.sha256.data()), event.sha256.size());
  return core::Sha256(std::string_view(bytes));
}

std::array<uint8_t, 32> ReplayNodeEvents(const std::vector<NodeEvent>& events) {
  std::vector<std::array<uint8_t, 32>> extended;
  for (const NodeEvent& e : events) extended.push_back(ExtendedDigest(e));
  return ReplayPcr(extended);
}

Result<std::vector<NodeStart>> SplitStarts(const NodePcrLog& log) {
  const Error none{"the node's PCR log has no start", ErrorKind::kInvalidArgument};
  if (log.events.empty()) return none;
  auto bad = [](size_t i, const std::string& what) {
    return Error{"the node's PCR log, event " + std::to_string(i) + ": " + what, ErrorKind::kInvalidArgument};
  };
  auto document = [&](size_t i, const NodeEvent& e) -> Result<nlohmann::json> {
    auto found = log.documents.find(Hex(e.sha256));
    if (found == log.documents.end()) return bad(i, e.kind + " " + Hex(e.sha256) + " without its document");
    return found->second;
  };
  std::vector<NodeStart> starts;
  size_t i = 0;
  while (i < log.events.size()) {
    const size_t begin = i;
    auto expect = [&](std::string_view kind) -> Result<const NodeEvent*> {
      if (i >= log.events.size()) {
        return bad(i, "the start at event " + std::to_string(begin) + " ends before its " + std::string(kind) +
                          " event (a start cut short)");
      }
      const NodeEvent& e = log.events[i];
      if (e.kind != kind) {
        return bad(i, "is " + e.kind + " where a start has " + std::string(kind) +
                          (kind == kStartEvent ? " (an event outside any start)" : ""));
      }
      ++i;
      return &e;
    };
    auto marker = expect(kStartEvent);
    if (!marker) return marker.error();
    auto marker_doc = document(begin, **marker);
    if (!marker_doc) return marker_doc.error();
    auto binary = expect(kBinaryEvent);
    if (!binary) return binary.error();
    auto allowlist = expect(kAllowlistEvent);
    if (!allowlist) return allowlist.error();
    auto trust = expect(kTrustEvent);
    if (!trust) return trust.error();
    NodeStart start;
    start.volent_sha256 = Hex((*binary)->sha256);
    start.allowlist_sha256 = Hex((*allowlist)->sha256);
    start.trust_sha256 = Hex((*trust)->sha256);
    auto allowlist_doc = document(i - 2, **allowlist);
    if (!allowlist_doc) return allowlist_doc.error();
    auto trust_doc = document(i - 1, **trust);
    if (!trust_doc) return trust_doc.error();
    start.allowlist = std::move(*allowlist_doc);
    start.trust = std::move(*trust_doc);
    if (i < log.events.size() && log.events[i].kind == kKernelEvent) {
      start.kernel_sha256 = Hex(log.events[i].sha256);
      ++i;
    }
    starts.push_back(std::move(start));
  }
  return starts;
}

Result<NodePcrLog> MeasureNode(Tpm& tpm, uint32_t pcr, const StartDocuments* start, const std::string& log_path,
                               const std::string& boot_id) {
  const uint32_t index[] = {pcr};
  auto found = tpm.ReadPcrs(index);
  if (!found) return found.error();
  NodePcrLog log = EarlierLog(log_path, boot_id, pcr);
  if (ReplayNodeEvents(log.events) != found->at(0).sha256) {
    // Not what this boot's log explains: say so rather than guess.
    log = NodePcrLog{};
    log.pcr = pcr;
    log.prior_unknown = found->at(0).sha256 != std::array<uint8_t, 32>{};
  }
  if (start == nullptr) return log;
  const nlohmann::json marker = {{"boot_id", boot_id}, {"format", kNodeLogFormat}};
  std::vector<std::pair<NodeEvent, const nlohmann::json*>> events = {
      {{std::string(kStartEvent), Raw(DocumentDigest(marker))}, &marker},
      {{std::string(kBinaryEvent), Raw(start->volent_sha256)}, nullptr},
      {{std::string(kAllowlistEvent), Raw(DocumentDigest(start->allowlist))}, &start->allowlist},
      {{std::string(kTrustEvent), Raw(DocumentDigest(start->trust))}, &start->trust},
  };
  if (!start->kernel_sha256.empty()) events.push_back({{std::string(kKernelEvent), Raw(start->kernel_sha256)}, nullptr});
  if (log.events.size() + events.size() > kMaxEvents) {
    return Error{"the node's PCR log is full (restarted too often in one boot): reboot the machine"};
  }
  for (const auto& [event, document] : events) {
    if (document != nullptr) log.documents[Hex(event.sha256)] = *document;
  }
  if (log.documents.size() > kMaxDocuments) {
    return Error{"the node's PCR log holds too many allowlists and configurations: reboot the machine"};
  }
  for (const auto& [event, document] : events) {
    CORE_RETURN_IF_ERROR(tpm.Extend(pcr, ExtendedDigest(event)));
    log.events.push_back(event);
  }
  const nlohmann::json saved = {{"boot_id", boot_id}, {"log", NodePcrLogJson(log)}};
  CORE_RETURN_IF_ERROR(core::WriteFileAtomically(log_path, core::DumpJson(saved, 2) + "\n", 0600));
  return log;
}

nlohmann::json NodePcrLogJson(const NodePcrLog& log) {
  nlohmann::json events = nlohmann::json::array();
  for (const NodeEvent& e : log.events) events.push_back({{"kind", e.kind}, {"sha256", Hex(e.sha256)}});
  nlohmann::json documents = nlohmann::json::object();
  for (const auto& [digest, document] : log.documents) documents[digest] = document;
  return {{"format", kNodeLogFormat},
          {"pcr", log.pcr},
          {"prior_unknown", log.prior_unknown},
          {"events", std::move(events)},
          {"documents", std::move(documents)}};
}

Result<NodePcrLog> NodePcrLogFromJson(const nlohmann::json& json) {
  const Error bad{"the node's PCR log is not {\"format\": 2, \"pcr\", \"prior_unknown\", \"events\": [{\"kind\", "
                  "\"sha256\"}], \"documents\": {}}",
                  ErrorKind::kInvalidArgument};
  if (!json.is_object()) return bad;
  if (!json.contains("format")) {
    return Error{"the node's PCR log is of format 1, whose events do not bind their kinds: it proves nothing; "
                 "upgrade the node and reboot its machine",
                 ErrorKind::kInvalidArgument};
  }
  if (json["format"] != kNodeLogFormat) {
    return Error{"the node's PCR log is of format " + json["format"].dump() + ", not " +
                     std::to_string(kNodeLogFormat) + " (the one this verifier reads)",
                 ErrorKind::kInvalidArgument};
  }
  static const std::set<std::string> kFields = {"format", "pcr", "prior_unknown", "events", "documents"};
  for (const auto& [key, value] : json.items()) {
    if (!kFields.count(key)) return bad;
  }
  if (!json.contains("pcr") || !json["pcr"].is_number_unsigned() || json["pcr"].get<uint64_t>() >= kPcrCount ||
      !json.contains("prior_unknown") || !json["prior_unknown"].is_boolean() || !json.contains("events") ||
      !json["events"].is_array() || json["events"].size() > kMaxEvents || !json.contains("documents") ||
      !json["documents"].is_object() || json["documents"].size() > kMaxDocuments) {
    return bad;
  }
  NodePcrLog log;
  log.pcr = json["pcr"].get<uint32_t>();
  log.prior_unknown = json["prior_unknown"].get<bool>();
  for (const nlohmann::json& e : json["events"]) {
    if (!e.is_object() || e.size() != 2 || !e.contains("kind") || !e["kind"].is_string() || !e.contains("sha256") ||
        !e["sha256"].is_string() || !core::IsLowerHex(e["sha256"].get<std::string>(), 32)) {
      return bad;
    }
    NodeEvent event;
    event.kind = e["kind"].get<std::string>();
    if (!IsNodeEventKind(event.kind)) {
      return Error{"the node's PCR log names an unknown event kind \"" + event.kind.substr(0, 64) +
                       "\" (known: node-start, volent-binary, egress-allowlist, node-trust, ampoule-kernel)",
                   ErrorKind::kInvalidArgument};
    }
    event.sha256 = Raw(e["sha256"].get<std::string>());
    log.events.push_back(std::move(event));
  }
  for (const auto& [digest, document] : json["documents"].items()) {
    if (!core::IsLowerHex(digest, 32) || DocumentDigest(document) != digest) {
      return Error{"the node's PCR log carries a document whose digest is not " + digest.substr(0, 64),
                   ErrorKind::kInvalidArgument};
    }
    log.documents[digest] = document;
  }
  return log;
}

}  // namespace volent::attest
