// The in-toto Statement v1 that a receipt's envelope carries.
//
//   {"_type": "https://in-toto.io/Statement/v1",
//    "subject": [{"name": "<name>", "digest": {"sha256": "<hex>"}}, ...],
//    "predicateType": "<URI>",
//    "predicate": { ... }}
//
// Parsing is strict about what a receipt relies on and lenient where the
// in-toto parsing rules say consumers must be: required fields must be
// present with the right types, every subject must carry a well-formed
// sha256 digest (64 lowercase hex digits), and unknown fields anywhere, as
// well as digests under other algorithm names, are ignored.
//
// Only parse a statement whose envelope signature has been verified first
// (see verify.h): the parser is safe on any input, but an unverified
// statement means nothing.
//
// Thread-safe: values only.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ampoule::receipt {

inline constexpr std::string_view kStatementType = "https://in-toto.io/Statement/v1";

// Named limit on subjects in one statement.
inline constexpr size_t kMaxSubjects = 4096;

struct Subject {
  std::string name;                           // "" if unset
  std::map<std::string, std::string> digest;  // algorithm -> value, as written

  // The sha256 digest (lowercase hex). REQUIRES: the subject came from
  // ParseStatement or has a "sha256" entry.
  const std::string& sha256() const { return digest.at("sha256"); }
};

struct Statement {
  std::vector<Subject> subject;
  std::string predicate_type;
  nlohmann::json predicate = nlohmann::json::object();  // always an object
};

// Parses a statement from JSON text. Returns an error (never throws) for
// malformed or duplicate-key JSON, a `_type` other than kStatementType, an
// empty or missing `subject`, a subject without a valid sha256 digest, a
// missing or empty `predicateType`, or a `predicate` that is not an object.
core::Result<Statement> ParseStatement(std::string_view json_text);

// Returns the statement as compact JSON (keys in sorted order): the bytes a
// receipt signs as its payload.
std::string SerializeStatement(const Statement& statement);

}  // namespace ampoule::receipt
