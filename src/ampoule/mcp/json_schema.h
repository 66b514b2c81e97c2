// A checker for the small part of JSON Schema (2020-12) that the tools'
// own schemas use, so that a tool's arguments are checked against exactly
// the schema tools/list publishes, and tests can check structuredContent
// against the outputSchema the same way.
//
// Supported keywords: type (a string or an array of strings: object, array,
// string, integer, number, boolean, null), properties, required,
// additionalProperties (false or a schema), items, minimum, maximum,
// exclusiveMinimum, minLength, enum. Any other keyword is ignored: the
// schemas given to this checker are ours, not the client's.
//
// Thread-safe: no state.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ampoule::mcp {

// Ok when `value` satisfies `schema`; otherwise an error naming the first
// offending place as a JSON Pointer ("/inputs/a.csv: expected a string").
core::Status CheckAgainstSchema(const nlohmann::json& schema, const nlohmann::json& value);

}  // namespace ampoule::mcp
