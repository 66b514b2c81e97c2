// Reading the gate's JSON documents (drafts, policies) field by field, with
// errors that name the document and the field. Unknown fields are errors:
// in a security document a misspelt field silently ignored is a rule that
// silently does not apply.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/file_read.h"
#include "core/result.h"

namespace ampoule::gate {

// `value` must be an object with no keys outside `known`. `where` names it
// in errors ("the draft", "draft field 'evidence'").
core::Status CheckObject(const nlohmann::json& value, std::string_view where,
                   std::initializer_list<std::string_view> known);

// A required non-empty string member.
core::Result<std::string> RequiredString(const nlohmann::json& object, std::string_view key,
                                   std::string_view where);

// A required whole number member in [0, 2^63).
core::Result<uint64_t> RequiredCount(const nlohmann::json& object, std::string_view key,
                               std::string_view where);

// A required non-empty string member holding a path, resolved against `base`.
core::Result<std::string> RequiredPath(const nlohmann::json& object, std::string_view key,
                                 std::string_view where, const std::filesystem::path& base);

// `text` resolved against `base` unless it is absolute.
std::string ResolvePath(std::string_view text, const std::filesystem::path& base);

// Reads a draft or policy file (at most 1 MiB: they are small, anything
// larger is a mistake) through the safe reader under `rules`, and tells the
// folder its relative paths start from.
struct Document {
  std::string text;
  std::filesystem::path folder;
};
core::Result<Document> ReadDocument(const std::string& path, std::string_view what,
                              const core::ReadRules& rules = {});

}  // namespace ampoule::gate
