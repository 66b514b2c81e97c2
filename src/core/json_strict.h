// Strict JSON parsing for signed documents (envelopes, statements).
//
// nlohmann::json on its own lets a later duplicate key silently replace an
// earlier one. Two parsers that disagree on which duplicate wins would read
// different meanings from the same signed bytes, so duplicates are refused
// outright. Nesting is capped so that later recursive walks (printing,
// comparison) stay well inside the stack.
//
// Thread-safe: no state.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/json.h"
#include "core/result.h"

namespace core {

// How numbers are taken.
enum class JsonNumbers {
  kAsParsed,  // nlohmann's way: an integer beyond 64 bits becomes a rounded double
  kExact,     // refuse any number a double or a 64-bit integer cannot hold as
              // written (an integer beyond 64 bits, 1e400): signed documents,
              // where two readers must not round one number two ways
};

// Parses `text` as one JSON value (RFC 8259, valid UTF-8, nothing after it).
// Returns the value, or an error naming `what` for malformed JSON, a
// byte-order mark (RFC 8259 forbids one in JSON that is exchanged, and
// readers disagree on skipping it), duplicate object keys, nesting deeper
// than kMaxJsonDepth (core/json.h), or (kExact) a number out of range,
// wherever it stands, including fields the reader later ignores. Never throws.
core::Result<nlohmann::json> ParseJsonStrict(std::string_view text, std::string_view what,
                                       JsonNumbers numbers = JsonNumbers::kAsParsed);

}  // namespace core
