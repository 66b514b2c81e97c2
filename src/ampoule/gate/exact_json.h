// JSON whose numbers keep the text they were written with, so that the gate
// compares the numbers a draft asserts with the signed output's exactly.
//
// nlohmann::json turns every number with a fraction or an exponent, and every
// integer beyond 64 bits, into a double: 1e16 and 10000000000000001 become the
// same value, and 1e400 is refused. ParseExact keeps each number's text
// instead, so any number RFC 8259 allows (1e400, 2^64+1, 1e999999999) is
// read, and numbers compare as exact decimal values (docs/gate.md): 1, 1.0,
// 1e0 and 10e-1 are equal; -0 equals 0; 1e16 and 10000000000000001 differ.
// No number is ever converted to binary for the comparison, and the work is
// linear in the text's length whatever the exponent.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ampoule::gate {

// A parsed document: its tree, in which each number is replaced by its
// position (an unsigned integer) in `numbers`, which holds its text.
struct ExactDocument {
  nlohmann::json tree;
  std::vector<std::string> numbers;
};

// Parses `text` as one JSON value with receipt::ParseJsonStrict's rules
// (valid UTF-8, no duplicate keys, nesting capped, nothing after it).
// Errors name `what`. Never throws.
core::Result<ExactDocument> ParseExact(std::string_view text, std::string_view what);

// Whether two number texts (RFC 8259 grammar) have the same decimal value.
bool SameNumber(std::string_view a, std::string_view b);

// `value` with each number turned back into the nlohmann number its text
// denotes, or an error when nlohmann cannot hold that number exactly (an
// integer beyond 64 bits, a decimal a double only approximates, 1e400):
// such a value could not be delivered as it was checked. `where` names the
// value in errors.
core::Result<nlohmann::json> ExactValue(const nlohmann::json& value, const std::vector<std::string>& numbers,
                                  std::string_view where);

// Whether `draft` (an ordinary value, whose numbers nlohmann holds exactly:
// see ExactValue) equals `signed_value` (a part of an ExactDocument's tree
// whose numbers are in `numbers`): same types, strings and booleans byte
// for byte, numbers by decimal value, arrays element by element, objects
// with the same members.
bool ExactEqual(const nlohmann::json& draft, const nlohmann::json& signed_value,
                const std::vector<std::string>& numbers);

// `value` (a part of an ExactDocument's tree) as compact JSON, each number
// as it was written.
std::string DumpExact(const nlohmann::json& value, const std::vector<std::string>& numbers);

}  // namespace ampoule::gate
