#include "gate/field_check.h"

#include "receipt/json_strict.h"

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

}  // namespace

std::vector<FieldMismatch> CompareFields(const std::map<std::string, AssertedField>& fields,
                                         std::string_view output) {
  std::vector<FieldMismatch> out;
  Result<nlohmann::json> doc = receipt::ParseJsonStrict(output, "the signed output");
  for (const auto& [name, field] : fields) {
    const std::string draft = receipt::DumpJson(field.value);
    if (!doc.ok()) {
      out.push_back({name, draft, "nothing: the signed output is not one JSON document"});
      continue;
    }
    const nlohmann::json* signed_value = Select(*doc, field.from);
    if (signed_value == nullptr) {
      out.push_back({name, draft, "nothing at " + field.from});
    } else if (*signed_value != field.value) {
      out.push_back({name, draft, receipt::DumpJson(*signed_value) + " at " + field.from});
    }
  }
  return out;
}

}  // namespace ampoule::gate
