// Plain YAML scalars to JSON values by the YAML 1.2 core schema (the table
// is in yaml_reader.h). Quoted scalars never come here: they are strings.
//
// Thread-safe: pure functions. Never throws.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace volent::manifest {

// The JSON value of a plain (unquoted) scalar, or why it is not one
// (kInvalidArgument: an integer out of 64 bits, infinity, NaN).
core::Result<nlohmann::json> ResolvePlainScalar(std::string_view text);

}  // namespace volent::manifest
