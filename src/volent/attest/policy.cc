#include "volent/attest/policy.h"

#include <set>

#include "core/base64.h"
#include "core/hex.h"
#include "core/json_strict.h"
#include "volent/attest/trust.h"

namespace volent::attest {
namespace {

using core::Error;
using nlohmann::json;

constexpr size_t kMaxPolicyBytes = size_t{1} << 20;

Error At(const std::string& pointer, const std::string& what) {
  return Error{"policy " + pointer + ": " + what, core::ErrorKind::kInvalidArgument};
}

core::Result<std::vector<std::string>> HexList(const json& value, const std::string& pointer, size_t bytes) {
  if (!value.is_array() || value.empty()) return At(pointer, "must be a non-empty list of hex strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string() || !core::IsLowerHex(value[i].get<std::string>(), bytes)) {
      return At(pointer + "/" + std::to_string(i), "must be " + std::to_string(2 * bytes) + " lowercase hex digits");
    }
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

core::Result<uint64_t> Count(const json& value, const std::string& pointer) {
  if (!value.is_number_unsigned()) return At(pointer, "must be a whole number from 0");
  return value.get<uint64_t>();
}

}  // namespace

core::Result<Policy> ParsePolicy(std::string_view text) {
  if (text.size() > kMaxPolicyBytes) return At("", "is larger than 1 MiB");
  auto parsed = core::ParseJsonStrict(text, "the policy", core::JsonNumbers::kExact);
  if (!parsed) return Error{parsed.message(), core::ErrorKind::kInvalidArgument};
  const json& p = *parsed;
  if (!p.is_object()) return At("", "must be a JSON object");
  static const std::set<std::string> kFields = {
      "signers", "nonce", "max_age_seconds", "boot_profiles", "secure_boot", "key_provenance", "tpm", "tpm_ak_names", "pcrs",
      "verity_roothash", "allowlist", "journal", "software", "egress", "trust"};
  for (const auto& [key, value] : p.items()) {
    if (!kFields.count(key)) return At("/" + key, "is not a policy field (docs/attestation.md, \"The policy\")");
  }

  Policy policy;
  const json* signers = p.contains("signers") ? &p["signers"] : nullptr;
  if (signers == nullptr || !signers->is_array() || signers->empty()) {
    return At("/signers", "must list at least one node public key (base64, as in DATA_DIR/node.key.pub)");
  }
  for (size_t i = 0; i < signers->size(); ++i) {
    const std::string pointer = "/signers/" + std::to_string(i);
    if (!(*signers)[i].is_string()) return At(pointer, "must be a base64 public key");
    auto raw = core::Base64Decode((*signers)[i].get<std::string>(), pointer);
    if (!raw) return At(pointer, raw.message());
    auto key = core::ed25519::PublicKey::FromBytes(*raw);
    if (!key) return At(pointer, key.message());
    policy.signers.push_back(*key);
  }
  if (p.contains("nonce")) {
    const json& n = p["nonce"];
    if (!n.is_string() || n.get<std::string>().empty() || n.get<std::string>().size() % 2 ||
        !core::IsLowerHex(n.get<std::string>(), n.get<std::string>().size() / 2)) {
      return At("/nonce", "must be lowercase hex");
    }
    policy.nonce_hex = n.get<std::string>();
  }
  if (p.contains("max_age_seconds")) {
    auto age = Count(p["max_age_seconds"], "/max_age_seconds");
    if (!age) return age.error();
    policy.max_age_seconds = *age;
  }
  if (p.contains("boot_profiles")) {
    static const std::set<std::string> kProfiles = {"full-chain", "shim-chain", "verity-only", "unsealed"};
    const json& b = p["boot_profiles"];
    if (!b.is_array() || b.empty()) return At("/boot_profiles", "must be a non-empty list");
    for (size_t i = 0; i < b.size(); ++i) {
      if (!b[i].is_string() || !kProfiles.count(b[i].get<std::string>())) {
        return At("/boot_profiles/" + std::to_string(i), "must be full-chain, shim-chain, verity-only or unsealed");
      }
      policy.boot_profiles.push_back(b[i].get<std::string>());
    }
  }
  if (p.contains("secure_boot")) {
    if (!p["secure_boot"].is_string() || (p["secure_boot"] != "required" && p["secure_boot"] != "any")) {
      return At("/secure_boot", "must be \"required\" or \"any\"");
    }
    policy.secure_boot_required = p["secure_boot"] == "required";
  }
  if (p.contains("key_provenance")) {
    if (!p["key_provenance"].is_string() ||
        (p["key_provenance"] != "production" && p["key_provenance"] != "dev-only")) {
      return At("/key_provenance", "must be \"production\" or \"dev-only\"");
    }
    policy.key_provenance = p["key_provenance"].get<std::string>();
  }
  if (p.contains("tpm")) {
    if (!p["tpm"].is_string() || (p["tpm"] != "required" && p["tpm"] != "optional")) {
      return At("/tpm", "must be \"required\" or \"optional\"");
    }
    policy.tpm_required = p["tpm"] == "required";
  }
  if (p.contains("tpm_ak_names")) {
    const json& names = p["tpm_ak_names"];
    if (!names.is_array() || names.empty()) return At("/tpm_ak_names", "must be a non-empty list of AK names (hex)");
    for (size_t i = 0; i < names.size(); ++i) {
      // A TPM name with a SHA-256 nameAlg: 000b and 32 bytes.
      if (!names[i].is_string() || !core::IsLowerHex(names[i].get<std::string>(), 34) ||
          names[i].get<std::string>().rfind("000b", 0) != 0) {
        return At("/tpm_ak_names/" + std::to_string(i), "must be an AK name: 000b and 64 lowercase hex digits");
      }
      policy.tpm_ak_names.push_back(names[i].get<std::string>());
    }
  }
  if (p.contains("pcrs")) {
    const json& pcrs = p["pcrs"];
    if (!pcrs.is_object() || pcrs.empty()) return At("/pcrs", "must be an object of PCR index to allowed values");
    for (const auto& [index, values] : pcrs.items()) {
      const bool digits = !index.empty() && index.size() <= 2 && index.find_first_not_of("0123456789") == std::string::npos &&
                          (index.size() == 1 || index[0] != '0');
      if (!digits || std::stoul(index) > 23) return At("/pcrs/" + index, "is not a PCR index (0 to 23)");
      auto list = HexList(values, "/pcrs/" + index, 32);
      if (!list) return list.error();
      policy.pcrs[static_cast<uint32_t>(std::stoul(index))] = std::move(*list);
    }
  }
  if (p.contains("verity_roothash")) {
    if (!p["verity_roothash"].is_string() || !core::IsLowerHex(p["verity_roothash"].get<std::string>(), 32)) {
      return At("/verity_roothash", "must be 64 lowercase hex digits");
    }
    policy.verity_roothash = p["verity_roothash"].get<std::string>();
  }
  if (p.contains("allowlist")) {
    const json& a = p["allowlist"];
    const bool one = a.is_object() && a.size() == 1 && (a.contains("equal") || a.contains("subset_of"));
    if (!one) return At("/allowlist", "must be {\"equal\": [...]} or {\"subset_of\": [...]}");
    const std::string how = a.begin().key();
    const json& entries = a.begin().value();
    if (!entries.is_array()) return At("/allowlist/" + how, "must be a list of allowlist entries (as in volent.yaml)");
    for (size_t i = 0; i < entries.size(); ++i) {
      if (!entries[i].is_object()) return At("/allowlist/" + how + "/" + std::to_string(i), "must be an object");
    }
    (how == "equal" ? policy.allowlist_equal : policy.allowlist_subset_of) = entries;
  }
  if (p.contains("journal")) {
    const json& j = p["journal"];
    if (!j.is_object() || j.empty()) return At("/journal", "must be {\"entries\": N, \"head\": \"sha256:HEX\"}");
    for (const auto& [key, value] : j.items()) {
      if (key == "entries") {
        auto n = Count(value, "/journal/entries");
        if (!n) return n.error();
        policy.journal_entries = *n;
      } else if (key == "head") {
        const bool ok = value.is_string() && value.get<std::string>().rfind("sha256:", 0) == 0 &&
                        core::IsLowerHex(value.get<std::string>().substr(7), 32);
        if (!ok) return At("/journal/head", "must be sha256: and 64 lowercase hex digits");
        policy.journal_head = value.get<std::string>();
      } else {
        return At("/journal/" + key, "is not a journal claim (entries, head)");
      }
    }
  }
  if (p.contains("software")) {
    const json& s = p["software"];
    if (!s.is_object() || s.empty()) return At("/software", "must be {\"volent\": [...], \"ampoule_kernel\": [...]}");
    for (const auto& [key, value] : s.items()) {
      if (key != "volent" && key != "ampoule_kernel") return At("/software/" + key, "is not volent or ampoule_kernel");
      auto list = HexList(value, "/software/" + key, 32);
      if (!list) return list.error();
      (key == "volent" ? policy.volent_sha256 : policy.kernel_sha256) = std::move(*list);
    }
  }
  if (p.contains("egress")) {
    const json& e = p["egress"];
    if (!e.is_object() || e.size() != 1 || !e.contains("dns_server")) {
      return At("/egress", "must be {\"dns_server\": \"IP:PORT\" or \"system\"}");
    }
    const json& dns = e["dns_server"];
    const std::string text = dns.is_string() ? dns.get<std::string>() : std::string();
    if (text != "system" && (text.empty() || text.size() > 53 || (text[0] != '[' && text.find('.') == std::string::npos) ||
                             text.find_first_not_of("0123456789abcdefABCDEF.:[]") != std::string::npos)) {
      return At("/egress/dns_server", "must be an IP address with an optional port (as volent.yaml writes it) or \"system\"");
    }
    policy.dns_server = dns == "system" ? "system" : DnsServerName(dns.get<std::string>());
  }
  if (p.contains("trust")) {
    const json& t = p["trust"];
    if (!t.is_object() || t.size() != 1 || !t.contains("sha256")) {
      return At("/trust", "must be {\"sha256\": [HEX, ...]} (the digests of trust configurations the policy allows)");
    }
    auto list = HexList(t["sha256"], "/trust/sha256", 32);
    if (!list) return list.error();
    policy.trust_sha256 = std::move(*list);
  }
  return policy;
}

}  // namespace volent::attest
