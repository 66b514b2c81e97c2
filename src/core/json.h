// JSON from outside (requests, responses, files a user gives): parsed within
// a size and a nesting limit, and written back without throwing.
// docs/decisions/0027-core-shared-helpers.md.
//
// Thread-safe: no state. Never throws but std::bad_alloc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace core {

// The deepest nesting of arrays and objects accepted in JSON from outside.
// Code that walks a parsed value (writing it, comparing it, checking it
// against a schema) recurses once per level, so a value of 8 MiB of "["
// would exhaust a thread's stack; no document or message either product
// reads needs more than a few levels.
inline constexpr int kMaxJsonDepth = 64;

struct JsonLimits {
  size_t max_bytes;  // longer text is refused before it is looked at
  int max_depth = kMaxJsonDepth;
};

// Why a text was refused, for callers that show the place their own way
// (as a line and column).
struct JsonProblem {
  enum class Kind { kTooLarge, kTooDeep, kSyntax };
  Kind kind;
  size_t offset = 0;  // kSyntax: of the offending byte, from 0
};

// Checks that `text` is one JSON value (RFC 8259, UTF-8, nothing after it)
// within `limits`, without building it.
std::optional<JsonProblem> CheckJson(std::string_view text, const JsonLimits& limits);

// Parses `text` within `limits`. Errors start with `what` ("the body"):
//   "the body is not JSON: syntax error at byte offset 17"
//   "the body nests arrays and objects deeper than 64 levels"
//   "the body is 9000000 bytes, more than the 4194304 allowed"
// No value deeper than the limit is ever built.
Result<nlohmann::json> ParseJsonBounded(std::string_view text, std::string_view what, const JsonLimits& limits);

// `value` as JSON text (compact, or indented by `indent` spaces), non-ASCII
// as UTF-8. Invalid UTF-8 in a string (which no parsed value holds, but a
// value built from other bytes may) becomes U+FFFD instead of an exception.
// Inline, so that the receipt library uses it without linking the core.
inline std::string DumpJson(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

}  // namespace core
