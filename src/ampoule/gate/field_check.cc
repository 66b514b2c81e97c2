#include "ampoule/gate/field_check.h"

#include <optional>

#include "ampoule/gate/exact_json.h"
#include "core/json.h"
#include "core/json_strict.h"

namespace ampoule::gate {
namespace {

// The value at `pointer`, or nullptr when it selects nothing or is not a
// valid pointer. nlohmann reports both by exception; none leave this file.
const nlohmann::json* Select(const nlohmann::json& doc, const std::string& pointer) {
  try {
    const nlohmann::json::json_pointer ptr(pointer);
    if (!doc.contains(ptr)) return nullptr;
    return &doc.at(ptr);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

// A pointer's tokens as written (still escaped: "~1" for '/'). Escaping is
// one-to-one, so equal escaped tokens are equal names.
std::vector<std::string_view> Tokens(std::string_view pointer) {
  std::vector<std::string_view> tokens;
  if (pointer.empty()) return tokens;
  size_t at = 1;
  for (;;) {
    const size_t slash = pointer.find('/', at);
    tokens.push_back(pointer.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at));
    if (slash == std::string_view::npos) break;
    at = slash + 1;
  }
  return tokens;
}

// An array index as RFC 6901 writes one: "0", or digits without a leading 0.
bool IsIndex(std::string_view token) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return false;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Whether the first pattern.size() tokens of `tokens` match `pattern`.
bool PrefixMatches(const std::vector<std::string_view>& tokens, const std::vector<std::string_view>& pattern) {
  if (tokens.size() < pattern.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == "*" ? !IsIndex(tokens[i]) : tokens[i] != pattern[i]) return false;
  }
  return true;
}

std::string Join(const std::vector<std::string_view>& tokens, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) out += "/" + std::string(tokens[i]);
  return out;
}

}  // namespace

std::vector<FieldMismatch> CompareFields(const std::map<std::string, AssertedField>& fields,
                                         const SignedDocuments& documents) {
  std::vector<FieldMismatch> out;
  // Each document is parsed once. Numbers keep their text, so that 1e16
  // does not equal 10000000000000001 and 1e400 is read rather than refused.
  std::map<std::string, core::Result<ExactDocument>> parsed;
  for (const auto& [name, field] : fields) {
    const std::string draft = core::DumpJson(field.value);
    const FieldSource source = ParseFieldSource(field.from).value_or(FieldSource{"", field.from});
    const std::string what = source.file.empty() ? "the signed output" : "output file '" + source.file + "'";
    auto text = documents.find(source.file);
    if (text == documents.end()) {
      out.push_back({name, draft, "nothing: " + what + " was not given"});
      continue;
    }
    auto doc = parsed.find(source.file);
    if (doc == parsed.end()) doc = parsed.emplace(source.file, ParseExact(text->second, what)).first;
    if (!doc->second.ok()) {
      out.push_back({name, draft, "nothing: " + what + " is not one JSON document"});
      continue;
    }
    const ExactDocument& d = *doc->second;
    const nlohmann::json* signed_value = Select(d.tree, source.pointer);
    if (signed_value == nullptr) {
      out.push_back({name, draft, "nothing at " + field.from});
    } else if (!ExactEqual(field.value, *signed_value, d.numbers)) {
      out.push_back({name, draft, DumpExact(*signed_value, d.numbers) + " at " + field.from});
    }
  }
  return out;
}

std::vector<FieldMismatch> CompareFields(const std::map<std::string, AssertedField>& fields,
                                         std::string_view output) {
  return CompareFields(fields, SignedDocuments{{"", output}});
}

namespace {

// The default rule: every field comes from one record, the object (or
// array) its pointer names a member of, in one document. `/orders/0/customer`
// and `/orders/1/amount` lie in two records; `/refund` and `/email` in one
// (the document itself).
void CheckOneRecord(const ActionDraft& draft, std::vector<std::string>& reasons) {
  std::optional<std::pair<std::string, std::string>> first;  // field, record
  for (const auto& [name, field] : draft.fields) {
    const FieldSource got = ParseFieldSource(field.from).value_or(FieldSource{});
    const std::vector<std::string_view> tokens = Tokens(got.pointer);
    const size_t parent = tokens.empty() ? 0 : tokens.size() - 1;
    std::string record = (got.file.empty() ? "" : "output/" + got.file + "#") + Join(tokens, parent);
    if (record.empty()) record = "the output's top level";
    if (!first) {
      first.emplace(name, std::move(record));
    } else if (record != first->second) {
      reasons.push_back("draft field '" + name + "' comes from " + field.from + ", outside " + first->second +
                        ", the record draft field '" + first->first + "' comes from: by default all fields of a "
                        "kind come from one record (a policy allows otherwise with kinds." + draft.kind +
                        ".same_record, a pattern such as /orders/*, or false)");
    }
  }
}

}  // namespace

std::vector<std::string> CheckSources(const ActionDraft& draft, const Policy& policy) {
  std::vector<std::string> reasons;
  auto rule = policy.kinds.find(draft.kind);
  const SourceRule default_rule;
  const SourceRule& r = rule == policy.kinds.end() ? default_rule : rule->second;
  const std::string of_kind = " for kind '" + draft.kind + "'";
  if (!r.from.empty()) {
    for (const auto& [name, field] : draft.fields) {
      auto pinned = r.from.find(name);
      if (pinned == r.from.end()) {
        std::string known;
        for (const auto& [n, unused] : r.from) known += (known.empty() ? "" : ", ") + n;
        reasons.push_back("draft field '" + name + "' has no source pinned by the policy" + of_kind +
                          " (pinned: " + known + ")");
        continue;
      }
      const FieldSource want = ParseFieldSource(pinned->second).value_or(FieldSource{});
      const FieldSource got = ParseFieldSource(field.from).value_or(FieldSource{});
      const std::vector<std::string_view> pattern = Tokens(want.pointer);
      const std::vector<std::string_view> tokens = Tokens(got.pointer);
      if (got.file != want.file || tokens.size() != pattern.size() || !PrefixMatches(tokens, pattern)) {
        reasons.push_back("draft field '" + name + "' comes from " + field.from + ", but the policy pins it to " +
                          pinned->second + of_kind);
      }
    }
  }
  if (r.same_record) {
    const FieldSource rule_source = ParseFieldSource(*r.same_record).value_or(FieldSource{});
    const std::vector<std::string_view> pattern = Tokens(rule_source.pointer);
    // The first field (by name) under a matching record names the record
    // the others must share.
    std::optional<std::pair<std::string, std::string>> first;  // field, record
    for (const auto& [name, field] : draft.fields) {
      const FieldSource got = ParseFieldSource(field.from).value_or(FieldSource{});
      const std::vector<std::string_view> tokens = Tokens(got.pointer);
      if (got.file != rule_source.file || !PrefixMatches(tokens, pattern)) {
        reasons.push_back("draft field '" + name + "' comes from " + field.from + ", not from a record " +
                          *r.same_record + " (the policy's same_record" + of_kind + ")");
        continue;
      }
      const std::string record =
          (got.file.empty() ? "" : "output/" + got.file + "#") + Join(tokens, pattern.size());
      if (!first) {
        first.emplace(name, record);
      } else if (record != first->second) {
        reasons.push_back("draft field '" + name + "' comes from " + field.from + ", outside " + first->second +
                          ", the record draft field '" + first->first + "' comes from (the policy's same_record " +
                          *r.same_record + of_kind + ")");
      }
    }
  } else if (!r.records_may_differ) {
    CheckOneRecord(draft, reasons);
  }
  return reasons;
}

}  // namespace ampoule::gate
