// Reading comma-separated values (RFC 4180) for the demo's reference
// computation: fields separated by commas, records by CRLF or LF, a field
// in double quotes may hold commas, line breaks and doubled quotes ("").
// A final line break is optional. Bytes are passed through (UTF-8 stays
// UTF-8).
//
// Malformed input (a quote inside an unquoted field, text after a closing
// quote, an unterminated quote) is an error naming the line, never a guess:
// the reference must not agree with the program by accident.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ampoule::demo {

using CsvRecord = std::vector<std::string>;

core::Result<std::vector<CsvRecord>> ParseCsv(std::string_view text);

}  // namespace ampoule::demo
