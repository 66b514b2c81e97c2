// JSON text in and out, safe for untrusted input: parsing never throws and
// refuses nesting deeper than a limit (what is parsed is later written back,
// and writing is recursive); writing never throws (invalid UTF-8 is
// replaced). Thread-safe: no state.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace volent::mockmodel {

inline constexpr size_t kMaxJsonDepth = 64;

// Errors say what is wrong and where (byte offset), e.g.
// "the body is not JSON: syntax error at byte 17".
ampoule::Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what = "the body");

std::string DumpJson(const nlohmann::json& value);

}  // namespace volent::mockmodel
