#include "gate/policy.h"

#include "gate/json_fields.h"
#include "receipt/json_strict.h"

namespace ampoule::gate {

Result<Policy> ParsePolicy(std::string_view json_text, const std::filesystem::path& base_dir) {
  Result<nlohmann::json> parsed = receipt::ParseJsonStrict(json_text, "the policy");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& p = *parsed;
  const char* where = "the policy";
  if (Status s = CheckObject(p, where,
                             {"trusted_keys", "kernel_sha256", "max_data_age_seconds",
                              "replay_fuel_ceiling", "decision_log", "outbox"});
      !s.ok()) {
    return s;
  }
  Policy policy;
  auto keys = p.find("trusted_keys");
  if (keys == p.end() || !keys->is_array() || keys->empty()) {
    return Error{"the policy needs 'trusted_keys': a list of at least one public key file"};
  }
  for (const nlohmann::json& k : *keys) {
    if (!k.is_string() || k.get_ref<const std::string&>().empty()) {
      return Error{"the policy's 'trusted_keys' must list public key file paths"};
    }
    policy.trusted_keys.push_back(ResolvePath(k.get<std::string>(), base_dir));
  }
  Result<std::string> kernel = RequiredString(p, "kernel_sha256", where);
  if (!kernel.ok()) return kernel.status();
  bool hex = kernel->size() == 64;
  for (char c : *kernel) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!hex) return Error{"the policy's 'kernel_sha256' must be 64 lowercase hex digits ('ampoule kernel info' prints it)"};
  policy.kernel_sha256 = *kernel;
  Result<uint64_t> age = RequiredCount(p, "max_data_age_seconds", where);
  if (!age.ok()) return age.status();
  policy.max_data_age_seconds = *age;
  Result<uint64_t> ceiling = RequiredCount(p, "replay_fuel_ceiling", where);
  if (!ceiling.ok()) return ceiling.status();
  policy.replay_fuel_ceiling = *ceiling;
  Result<std::string> log = RequiredPath(p, "decision_log", where, base_dir);
  if (!log.ok()) return log.status();
  policy.decision_log = *log;
  Result<std::string> outbox = RequiredPath(p, "outbox", where, base_dir);
  if (!outbox.ok()) return outbox.status();
  policy.outbox = *outbox;
  return policy;
}

Result<Policy> LoadPolicy(const std::string& path) {
  // Whoever can write the policy decides what the gate lets out.
  receipt::ReadRules rules;
  rules.refuse_writable_by_others = true;
  Result<Document> doc = ReadDocument(path, "policy", rules);
  if (!doc.ok()) return doc.status();
  Result<Policy> policy = ParsePolicy(doc->text, doc->folder);
  if (!policy.ok()) return Error{path + ": " + policy.message()};
  return policy;
}

}  // namespace ampoule::gate
