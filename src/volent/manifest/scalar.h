// Plain YAML scalars to JSON values by the YAML 1.2 core schema (the table
// is in yaml_reader.h). Quoted scalars never come here: they are strings.
//
// Thread-safe: pure functions. Never throws.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace volent::manifest {

struct ScalarValue {
  nlohmann::json value;  // null when `error` is set
  std::string error;     // "" or why the scalar is not a JSON value
};

ScalarValue ResolvePlainScalar(std::string_view text);

}  // namespace volent::manifest
