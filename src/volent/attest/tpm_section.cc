#include "volent/attest/tpm_section.h"

#include "core/base64.h"
#include "core/hex.h"

namespace volent::attest {
namespace {

using nlohmann::json;

// The most bytes any one field of a section may decode to: far above a real
// quote (hundreds of bytes) or event log (tens of KB).
constexpr size_t kMaxFieldBytes = size_t{4} << 20;

core::Error Bad(const std::string& what) {
  return core::Error{"tpm section: " + what, core::ErrorKind::kInvalidArgument};
}

Result<std::string> Bytes(const json& section, const json::json_pointer& at, std::string_view what) {
  if (!section.contains(at) || !section.at(at).is_string()) return Bad(std::string(what) + " is missing");
  const std::string& text = section.at(at).get_ref<const std::string&>();
  if (text.size() > kMaxFieldBytes / 3 * 4 + 4) return Bad(std::string(what) + " is too long");
  auto raw = core::Base64Decode(text, what);
  if (!raw) return Bad(raw.message());
  return raw;
}

}  // namespace

json NoTpmSection(const std::string& reason) { return {{"present", false}, {"reason", reason}}; }

Result<json> TpmSection(Tpm& tpm, const std::string& nonce, const NodePcrLog& node_log, const std::string& event_log,
                        const std::string& event_log_reason) {
  auto ak = tpm.Ak();
  if (!ak) return ak.error();
  auto quote = tpm.Quote(kQuotedPcrs, nonce);
  if (!quote) return quote.error();
  // The EK's public part: what a verifier makes a credential under to learn
  // that the AK lives in this TPM (credential activation, docs/attestation.md).
  auto ek = tpm.EndorsementKeyPublic();
  if (!ek) return ek.error();
  json pcrs = json::object();
  for (const PcrValue& v : quote->pcrs) pcrs[std::to_string(v.index)] = core::HexEncode(std::span(v.sha256));
  json section = {
      {"present", true},
      {"ak", {{"public", core::Base64Encode(ak->public_area)}, {"pem", ak->pem},
              {"name", core::HexEncode(ak->name)}}},
      {"quote", {{"attest", core::Base64Encode(quote->attest)}, {"signature", core::Base64Encode(quote->signature)},
                 {"pcrs", std::move(pcrs)}}},
      {"ek", {{"public", core::Base64Encode(*ek)}}},
      {"node", NodePcrLogJson(node_log)},
      {"event_log", event_log.empty() ? json(nullptr) : json(core::Base64Encode(event_log))},
  };
  if (event_log.empty()) section["event_log_reason"] = event_log_reason;
  return section;
}

Result<TpmEvidence> ReadTpmSection(const json& section) {
  if (!section.is_object() || !section.contains("present") || section["present"] != true) {
    return Bad("no TPM is present");
  }
  TpmEvidence evidence;
  auto ak_public = Bytes(section, json::json_pointer("/ak/public"), "ak.public");
  auto attest = Bytes(section, json::json_pointer("/quote/attest"), "quote.attest");
  auto signature = Bytes(section, json::json_pointer("/quote/signature"), "quote.signature");
  if (!ak_public) return ak_public.error();
  if (!attest) return attest.error();
  if (!signature) return signature.error();
  evidence.quote.ak_public = std::move(*ak_public);
  evidence.quote.attest = std::move(*attest);
  evidence.quote.signature = std::move(*signature);
  const json::json_pointer name_at("/ak/name");
  if (!section.contains(name_at) || !section.at(name_at).is_string()) return Bad("ak.name is missing");
  auto name = core::HexDecode(section.at(name_at).get<std::string>(), "ak.name");
  if (!name) return Bad(name.message());
  evidence.ak_name = std::move(*name);

  const json::json_pointer pcrs_at("/quote/pcrs");
  if (!section.contains(pcrs_at) || !section.at(pcrs_at).is_object()) return Bad("quote.pcrs is missing");
  for (uint32_t index = 0; index < kPcrCount; ++index) {
    const std::string key = std::to_string(index);
    const json& pcrs = section.at(pcrs_at);
    if (!pcrs.contains(key)) continue;
    if (!pcrs[key].is_string() || !core::IsLowerHex(pcrs[key].get<std::string>(), 32)) {
      return Bad("quote.pcrs." + key + " is not 64 lowercase hex digits");
    }
    auto raw = core::HexDecode(pcrs[key].get<std::string>(), "pcr");
    PcrValue value;
    value.index = index;
    std::copy(raw->begin(), raw->end(), value.sha256.begin());
    evidence.quote.pcrs.push_back(value);
  }
  if (evidence.quote.pcrs.size() != section.at(pcrs_at).size()) return Bad("quote.pcrs names a PCR out of 0-23");

  auto node = NodePcrLogFromJson(section.contains("node") ? section["node"] : json());
  if (!node) return Bad(node.message());
  evidence.node_log = std::move(*node);
  if (section.contains("event_log") && !section["event_log"].is_null()) {
    auto log = Bytes(section, json::json_pointer("/event_log"), "event_log");
    if (!log) return log.error();
    evidence.event_log = std::move(*log);
  }
  return evidence;
}

}  // namespace volent::attest
