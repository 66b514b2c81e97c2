// Small text helpers shared by the provider codecs and the client: text
// taken from a response is untrusted (any bytes, any length), so whatever
// of it goes into an error message is cut and made valid, printable UTF-8.
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace volent::model {

// At most `max` bytes of `text` (cut on a UTF-8 boundary, "..." added when
// cut), invalid UTF-8 replaced, as a JSON string literal with its quotes.
std::string Quoted(std::string_view text, size_t max = 200);

// `text` cut like Quoted, without quotes; control characters become spaces.
std::string Excerpt(std::string_view text, size_t max = 300);

// The most of an answer read (larger ones are cut off by the client).
inline constexpr size_t kMaxAnswerBytes = 8 * 1024 * 1024;

// Parses `body` as JSON without throwing; a discarded value when it is not,
// or is over core/json.h's limits (kMaxJsonDepth, kMaxAnswerBytes).
nlohmann::json ParseJson(std::string_view body);

}  // namespace volent::model
