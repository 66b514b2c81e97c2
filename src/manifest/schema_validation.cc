// valijson behind CompiledSchema (schema_validation.h). The only file that
// includes valijson, so its exception setting is the same everywhere.
#define VALIJSON_USE_EXCEPTIONS 1
#include "manifest/schema_validation.h"

#include <exception>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "manifest/yaml_reader.h"

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

}  // namespace

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
    if (errors) errors->push_back({"", error_});
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
      while (results.popError(error)) errors->push_back({ContextToPointer(error.context, document), error.description});
    }
    return valid;
  } catch (const std::exception& e) {
    if (errors) errors->push_back({"", std::string("the document could not be validated: ") + e.what()});
    return false;
  }
}

}  // namespace volent::manifest
