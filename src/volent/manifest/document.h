// One document through the common steps: read (yaml_reader.h), validate
// against its schema (schema_validation.h, the judge), explain failures
// (schema_explain.h) and place every problem at a line and column. The
// agent and node configuration loaders add their own rules on top.
//
// Thread-safe: the compiled schemas are built once (function-local
// statics) and shared read-only. Never throws but std::bad_alloc.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/manifest/manifest.h"
#include "volent/manifest/yaml_reader.h"

namespace volent::manifest {

enum class SchemaKind { kAgent, kNodeConfig };

struct CheckedDocument {
  std::string file;
  nlohmann::json value;
  Positions positions;
  Problems problems;
  bool readable = false;  // the text was read; `value` holds it

  // A problem at the value (or, with at_key, the key) at `pointer`.
  void Add(const std::string& pointer, std::string message, bool at_key = false);
  // True when a problem names `pointer` already (so a rule beyond the
  // schema does not repeat what the schema said about the same value).
  bool HasProblemAt(const std::string& pointer) const;
};

CheckedDocument ReadAndValidate(std::string_view text, std::string_view file, SchemaKind kind);

// Reading a document that passed its schema: the member `key` of object
// `v` (null when `v` is null, not an object or has no such member), and its
// string value ("" when it is absent or not a string).
const nlohmann::json* Member(const nlohmann::json* v, const char* key);
std::string StringAt(const nlohmann::json* v, const char* key);

// The schema as JSON (parsed once).
const nlohmann::json& SchemaJson(SchemaKind kind);

// At most this many problems are reported per document (a generated file
// can have thousands; the first ones tell what is wrong).
inline constexpr size_t kMaxProblems = 100;

// Problems in reading order (line, column), duplicates removed, at most
// kMaxProblems, the last of which then says how many more were found.
void SortProblems(Problems& problems);

}  // namespace volent::manifest
