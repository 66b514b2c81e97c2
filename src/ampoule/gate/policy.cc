#include "ampoule/gate/policy.h"

#include "ampoule/gate/action.h"
#include "ampoule/gate/json_fields.h"
#include "ampoule/gate/names.h"
#include "core/json_strict.h"

namespace ampoule::gate {
namespace {

// A field source (action.h: a JSON Pointer into stdout, or
// output/NAME#POINTER into an output file) whose tokens may be `*` (any
// array index).
core::Result<std::string> Pattern(const nlohmann::json& value, const std::string& where) {
  if (!value.is_string() || !ParseFieldSource(value.get_ref<const std::string&>())) {
    return core::Error{where + " must be a JSON Pointer into the output, '*' standing for any array index "
                 "(like \"/orders/*/amount\"), or output/NAME#POINTER for an output file"};
  }
  return value.get<std::string>();
}

core::Result<std::map<std::string, SourceRule>> ParseKinds(const nlohmann::json& kinds) {
  if (!kinds.is_object()) return core::Error{"the policy's 'kinds' must be an object: kind -> {\"from\", \"same_record\"}"};
  std::map<std::string, SourceRule> rules;
  for (const auto& [kind, spec] : kinds.items()) {
    const std::string where = "the policy's 'kinds." + kind + "'";
    // Drafts' kinds are compared in NFC; so are the policy's.
    core::Result<std::string> name = NormaliseName(kind, "the policy's kind '" + kind + "'");
    if (!name.ok()) return name.status();
    if (core::Status s = CheckObject(spec, where, {"from", "same_record"}); !s.ok()) return s;
    if (!spec.contains("from") && !spec.contains("same_record")) {
      return core::Error{where + " needs 'from' (field -> pointer) or 'same_record' (a pointer pattern, or false), or both"};
    }
    SourceRule rule;
    if (auto from = spec.find("from"); from != spec.end()) {
      if (!from->is_object() || from->empty()) {
        return core::Error{where + " 'from' must be an object naming at least one field: field -> pointer"};
      }
      for (const auto& [field, pattern] : from->items()) {
        core::Result<std::string> p = Pattern(pattern, where + " 'from." + field + "'");
        if (!p.ok()) return p.status();
        rule.from[field] = *p;
      }
    }
    if (auto same = spec.find("same_record"); same != spec.end() && same->is_boolean()) {
      // true would say what the default already says; only false means something.
      if (same->get<bool>()) {
        return core::Error{where + " 'same_record' is a pointer pattern, or false to let fields come from different "
                     "records; true is the default and is not written"};
      }
      rule.records_may_differ = true;
    } else if (same != spec.end()) {
      core::Result<std::string> p = Pattern(*same, where + " 'same_record'");
      if (!p.ok()) return p.status();
      rule.same_record = *p;
    }
    if (!rules.emplace(*name, std::move(rule)).second) {
      return core::Error{where + " is the same kind as another entry once normalised (NFC)"};
    }
  }
  return rules;
}

}  // namespace

core::Result<Policy> ParsePolicy(std::string_view json_text, const std::filesystem::path& base_dir) {
  core::Result<nlohmann::json> parsed = core::ParseJsonStrict(json_text, "the policy");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& p = *parsed;
  const char* where = "the policy";
  if (core::Status s = CheckObject(p, where,
                             {"trusted_keys", "kernel_sha256", "max_data_age_seconds",
                              "replay_fuel_ceiling", "min_isolation", "decision_log", "outbox", "kinds"});
      !s.ok()) {
    return s;
  }
  Policy policy;
  auto keys = p.find("trusted_keys");
  if (keys == p.end() || !keys->is_array() || keys->empty()) {
    return core::Error{"the policy needs 'trusted_keys': a list of at least one public key file"};
  }
  for (const nlohmann::json& k : *keys) {
    if (!k.is_string() || k.get_ref<const std::string&>().empty()) {
      return core::Error{"the policy's 'trusted_keys' must list public key file paths"};
    }
    policy.trusted_keys.push_back(ResolvePath(k.get<std::string>(), base_dir));
  }
  core::Result<std::string> kernel = RequiredString(p, "kernel_sha256", where);
  if (!kernel.ok()) return kernel.status();
  bool hex = kernel->size() == 64;
  for (char c : *kernel) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!hex) return core::Error{"the policy's 'kernel_sha256' must be 64 lowercase hex digits ('ampoule kernel info' prints it)"};
  policy.kernel_sha256 = *kernel;
  core::Result<uint64_t> age = RequiredCount(p, "max_data_age_seconds", where);
  if (!age.ok()) return age.status();
  policy.max_data_age_seconds = *age;
  core::Result<uint64_t> ceiling = RequiredCount(p, "replay_fuel_ceiling", where);
  if (!ceiling.ok()) return ceiling.status();
  policy.replay_fuel_ceiling = *ceiling;
  if (auto min = p.find("min_isolation"); min != p.end()) {
    core::Result<run::Isolation> isolation =
        min->is_string() ? run::ParseIsolation(min->get_ref<const std::string&>())
                         : core::Result<run::Isolation>(core::Error{"it is not a string"});
    if (!isolation.ok()) {
      return core::Error{"the policy's 'min_isolation' must be \"none\", \"jail\" or \"vm\" (the least isolation a "
                   "receipt must state; absent: jail): " + isolation.message()};
    }
    policy.min_isolation = *isolation;
  }
  core::Result<std::string> log = RequiredPath(p, "decision_log", where, base_dir);
  if (!log.ok()) return log.status();
  policy.decision_log = *log;
  core::Result<std::string> outbox = RequiredPath(p, "outbox", where, base_dir);
  if (!outbox.ok()) return outbox.status();
  policy.outbox = *outbox;
  if (auto kinds = p.find("kinds"); kinds != p.end()) {
    core::Result<std::map<std::string, SourceRule>> rules = ParseKinds(*kinds);
    if (!rules.ok()) return rules.status();
    policy.kinds = std::move(*rules);
  }
  return policy;
}

core::Result<Policy> LoadPolicy(const std::string& path) {
  // Whoever can write the policy decides what the gate lets out.
  core::ReadRules rules;
  rules.refuse_writable_by_others = true;
  core::Result<Document> doc = ReadDocument(path, "policy", rules);
  if (!doc.ok()) return doc.status();
  core::Result<Policy> policy = ParsePolicy(doc->text, doc->folder);
  if (!policy.ok()) return core::Error{path + ": " + policy.message()};
  return policy;
}

}  // namespace ampoule::gate
