// Messages a person can act on, for the JSON Schema keywords our schemas
// use: walks schema and document together and says, at each failing value,
// what was expected and what was found ('must be one of "http", "wasm";
// found "grpc"', 'unknown field "colour"', 'missing required field "name"').
//
// valijson (schema_validation.h) stays the judge: these findings are shown
// only when valijson rejects the document, and valijson's own messages are
// shown, in our words (SchemaMessage), when this finds nothing. Keywords
// covered: $ref (local), type, enum, const, required, properties,
// patternProperties, additionalProperties, propertyNames, dependencies,
// min/maxProperties, items (one schema or a tuple), additionalItems,
// contains, pattern, min/maxLength, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, min/maxItems, uniqueItems, allOf, anyOf,
// oneOf, not, if/then/else, boolean schemas; "format" is left to valijson.
// Types are judged as valijson judges them with strict types (4.0 is not an
// integer). A schema's "description" is added to messages of its then/else
// branches as the reason.
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
