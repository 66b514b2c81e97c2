// Messages a person can act on, for the JSON Schema keywords our schemas
// use: walks schema and document together and says, at each failing value,
// what was expected and what was found ('must be one of "http", "wasm";
// found "grpc"', 'unknown field "colour"', 'missing required field "name"').
//
// valijson (schema_validation.h) stays the judge: these findings are shown
// only when valijson rejects the document, and valijson's own messages are
// shown when this finds nothing. Keywords covered: $ref (local), type,
// enum, const, required, properties, additionalProperties, propertyNames,
// items, pattern, min/maxLength, minimum, maximum, min/maxItems,
// uniqueItems, allOf, anyOf, oneOf, not, if/then/else, boolean schemas. A
// schema's "description" is added to messages of its then/else branches as
// the reason.
//
// Thread-safe: pure function. Never throws but std::bad_alloc.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace volent::manifest {

struct Finding {
  std::string pointer;  // of the failing value (of the field, for unknown fields)
  bool at_key = false;  // the position to show is the key's (unknown or forbidden fields)
  std::string message;
};

std::vector<Finding> ExplainSchemaFailures(const nlohmann::json& schema, const nlohmann::json& document);

}  // namespace volent::manifest
