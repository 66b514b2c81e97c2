// valijson behind CompiledSchema (schema_validation.h). The only file that
// includes valijson, so its exception setting is the same everywhere.
#define VALIJSON_USE_EXCEPTIONS 1
#include "volent/manifest/schema_validation.h"

#include <exception>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "core/json.h"
#include "volent/manifest/yaml_reader.h"

namespace volent::manifest {
namespace {

// valijson's context ("<root>", "[spec]", "[tools]", "[0]") as a JSON
// Pointer. A bracketed token is an index where the document has an array.
std::string ContextToPointer(const std::vector<std::string>& context, const nlohmann::json& document) {
  std::string pointer;
  const nlohmann::json* at = &document;
  for (size_t i = 1; i < context.size(); ++i) {
    std::string token = context[i];
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']') token = token.substr(1, token.size() - 2);
    pointer += "/" + EscapePointerToken(token);
    if (at == nullptr) continue;
    if (at->is_object()) {
      auto it = at->find(token);
      at = it == at->end() ? nullptr : &*it;
    } else if (at->is_array()) {
      size_t index = 0;
      bool digits = !token.empty();
      for (char c : token) digits = digits && c >= '0' && c <= '9';
      if (digits) index = std::stoul(token);
      at = digits && index < at->size() ? &(*at)[index] : nullptr;
    } else {
      at = nullptr;
    }
  }
  return pointer;
}

// `text` with its beginning `prefix` cut off into `*rest`, when it has it.
bool After(const std::string& text, std::string_view prefix, std::string* rest) {
  if (text.compare(0, prefix.size(), prefix) != 0) return false;
  *rest = text.substr(prefix.size());
  return true;
}

// valijson prints limits with std::to_string: "10000.000000" -> "10000".
std::string Trimmed(std::string number) {
  while (!number.empty() && (number.back() == '.' || number.back() == ' ')) number.pop_back();
  if (number.find('.') != std::string::npos) {
    while (number.back() == '0') number.pop_back();
    if (number.back() == '.') number.pop_back();
  }
  return number;
}

// The text between the first pair of single quotes, as a quoted name.
std::string QuotedName(const std::string& text) {
  const size_t open = text.find('\'');
  const size_t close = text.rfind('\'');
  const std::string name = open == std::string::npos || close <= open ? text : text.substr(open + 1, close - open - 1);
  return core::DumpJson(nlohmann::json(name));
}

// "3 items", "1 item".
std::string Count(const std::string& n, const char* one, const char* many) {
  return n + " " + (n == "1" ? one : many);
}

// "#3 in array." -> "3".
std::string Index(const std::string& text) {
  size_t end = 0;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  return text.substr(0, end);
}

}  // namespace

std::string SchemaMessage(const std::string& d, bool* summary) {
  if (summary) *summary = false;
  auto summarised = [&](std::string message) {
    if (summary) *summary = true;
    return message;
  };
  std::string rest;
  // Limits (the number follows the fixed words).
  if (After(d, "Expected number less than or equal to ", &rest)) return "must be at most " + Trimmed(rest);
  if (After(d, "Expected number less than ", &rest)) return "must be less than " + Trimmed(rest);
  if (After(d, "Expected number greater than or equal to ", &rest)) return "must be at least " + Trimmed(rest);
  if (After(d, "Expected number greater than ", &rest)) return "must be greater than " + Trimmed(rest);
  if (After(d, "Array should contain no more than ", &rest)) return "must have at most " + Count(Index(rest), "item", "items");
  if (After(d, "Array should contain no fewer than ", &rest)) return "must have at least " + Count(Index(rest), "item", "items");
  if (After(d, "String should be no more than ", &rest)) return "must be at most " + Count(Index(rest), "character", "characters") + " long";
  if (After(d, "String should be no fewer than ", &rest)) return "must be at least " + Count(Index(rest), "character", "characters") + " long";
  if (After(d, "Object should have no more than ", &rest)) return "must have at most " + Count(Index(rest), "field", "fields");
  if (After(d, "Object should have no fewer than ", &rest)) return "must have at least " + Count(Index(rest), "field", "fields");
  if (After(d, "Value should be a multiple of ", &rest) ||
      After(d, "Value could not be converted to a number to check if it is a multiple of ", &rest)) {
    return "must be a multiple of " + Trimmed(rest);
  }
  if (After(d, "Value could not be converted to ", &rest)) return "must be a number that can be checked for being a multiple";
  // Objects.
  if (After(d, "Missing required property ", &rest)) return "missing required field " + QuotedName(rest);
  if (After(d, "Missing dependency ", &rest)) return "missing field " + QuotedName(rest) + ", which another field here needs";
  if (After(d, "Object contains a property that could not be validated using 'properties' or 'additionalProperties' constraints: ", &rest)) {
    return "unknown field " + QuotedName(rest);
  }
  // Arrays.
  if (After(d, "Elements at indexes #", &rest)) {
    const std::string first = Index(rest);
    std::string second;
    After(rest, first + " and #", &second);
    return "items " + first + " and " + Index(second) + " are the same (each item must be different)";
  }
  if (d == "Array contains more items than allowed by items constraint.") return "has more items than allowed here";
  if (After(d, "Cannot validate item #", &rest)) return "has more items than allowed here (from item " + Index(rest) + " on)";
  if (d == "Failed to any values against subschema in 'contains' constraint.") return "has no item of the required form";
  // Values.
  if (d == "Value type not permitted by 'type' constraint.") return "is not of a type allowed here";
  if (d == "Failed to match against any enum values.") return "is not one of the allowed values";
  if (d == "Failed to match expected value set by 'const' constraint." ||
      d == "Target value and comparison value are not equal") {
    return "is not the value required here";
  }
  if (d == "Failed to match regex specified by 'pattern' constraint.") return "is not in the required form (pattern)";
  if (d == "String should be a valid date") return "must be a date (YYYY-MM-DD)";
  if (d == "String should be a valid time") return "must be a time of day (HH:MM:SS with a time zone)";
  if (d == "String should be a valid date-time") return "must be a date and time (e.g. 2026-01-31T12:00:00Z)";
  // Combinations.
  if (d == "Failed to validate against any schemas allowed by anyOf constraint." ||
      d == "Failed to validate against any child schemas allowed by oneOf constraint.") {
    return "matches none of the allowed forms";
  }
  if (d == "Failed to validate against exactly one child schema.") return "matches more than one of the allowed forms";
  if (d == "Target should not validate against schema specified in 'not' constraint.") return "is not allowed";
  // Summaries of failures reported on their own (inside a list, a field, ...).
  if (After(d, "Failed to validate item #", &rest)) return summarised("item " + Index(rest) + " is not valid");
  if (After(d, "Failed to validate against schema associated with property name ", &rest)) {
    return summarised("field " + QuotedName(rest) + " is not valid");
  }
  if (After(d, "Failed to validate against schema associated with pattern ", &rest)) {
    return summarised("a field whose name matches " + QuotedName(rest) + " is not valid");
  }
  if (d == "Failed to validate against additional properties schema") return summarised("a field here is not valid");
  if (d == "Failed to validate against dependent schema.") return summarised("does not meet what another field here needs");
  if (d == "Failed to validate against a conditional schema set by if-then-else constraints.") {
    return summarised("does not meet a condition that applies here");
  }
  if (After(d, "Failed to validate against child schema #", &rest)) return summarised("does not meet every rule that applies here");
  if (d.rfind("Failed to validate", 0) == 0) return summarised("is not valid here");
  return "does not match the schema here";
}

CompiledSchema::CompiledSchema(const nlohmann::json& schema) {
  try {
    auto compiled = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(schema);
    parser.populateSchema(adapter, *compiled);
    schema_ = std::move(compiled);
  } catch (const std::exception& e) {
    error_ = std::string("the schema could not be compiled: ") + e.what();
  }
}

CompiledSchema::~CompiledSchema() = default;

bool CompiledSchema::Validate(const nlohmann::json& document, std::vector<SchemaError>* errors) const {
  if (!schema_) {
    if (errors) errors->push_back({"", error_, "the schema could not be compiled", false});
    return false;
  }
  try {
    // One validator per thread: it caches compiled patterns (keyed by the
    // pattern text, so shared by every schema), which would otherwise be
    // compiled again on each call.
    thread_local valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::adapters::NlohmannJsonAdapter target(document);
    valijson::ValidationResults results;
    const bool valid = validator.validate(*schema_, target, errors ? &results : nullptr);
    if (errors) {
      valijson::ValidationResults::Error error;
      while (results.popError(error)) {
        bool summary = false;
        std::string message = SchemaMessage(error.description, &summary);
        errors->push_back({ContextToPointer(error.context, document), error.description, std::move(message), summary});
      }
    }
    return valid;
  } catch (const std::exception& e) {
    if (errors) errors->push_back({"", e.what(), "the document could not be checked against its schema", false});
    return false;
  }
}

}  // namespace volent::manifest
