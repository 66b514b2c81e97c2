// The action draft an agent submits to the trust gate (docs/gate.md): what
// it wants to do, under which idempotency key, which fields it asserts and
// where in the signed output each one comes from, how old its data is, and
// the evidence (receipt, program, inputs, output) that backs it.
//
// Parsing is strict: unknown fields, duplicate keys and wrong types are
// errors naming the field, since a field the gate ignored could carry an
// unchecked claim. Paths are resolved against the draft file's folder.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ampoule::gate {

// One asserted field: the value the action will carry, and where in the
// signed output the same value must be (`from`, a FieldSource below). The
// value's numbers are exactly the ones the draft wrote (exact_json.h).
struct AssertedField {
  nlohmann::json value;
  std::string from;
};

// Where a field's `from` points: a JSON Pointer (RFC 6901) into the run's
// stdout ("/refunds/0/amount"), or into an output file the run left in
// /output, written "output/NAME#POINTER" ("output/report.json#/total").
// Both are signed: stdout by its subject, the file by `output/NAME`.
struct FieldSource {
  std::string file;     // "" for stdout, else the output file's name
  std::string pointer;  // "/..."
};

// Splits `from`; nullopt when it is neither form (a pointer that is not
// RFC 6901, a file name run::CheckOutputName refuses). Patterns of the
// policy use the same syntax (their '*' tokens are ordinary tokens here).
std::optional<FieldSource> ParseFieldSource(std::string_view from);

struct Evidence {
  std::string receipt;                        // path
  std::string program;                        // path
  std::map<std::string, std::string> inputs;  // name in the receipt -> path
  std::optional<std::string> stdin_path;
  std::string output;                         // the run's stdout, as printed
  std::map<std::string, std::string> output_files;  // output file name -> path
};

struct ActionDraft {
  std::string kind;             // in NFC, checked (names.h)
  std::string idempotency_key;  // in NFC, checked (names.h)
  std::map<std::string, AssertedField> fields;  // at least one
  int64_t data_as_of = 0;                       // Unix seconds, from RFC 3339 UTC
  Evidence evidence;
};

// Parses a draft; `base_dir` is the folder relative paths start from.
core::Result<ActionDraft> ParseActionDraft(std::string_view json_text, const std::filesystem::path& base_dir);

// Reads and parses the draft file at `path`; errors name the file.
core::Result<ActionDraft> LoadActionDraft(const std::string& path);

// "2026-11-29T08:00:00Z" (optionally with fractional seconds, which are
// dropped) -> Unix seconds. Only UTC ('Z') is accepted, so that a time zone
// cannot be misread.
core::Result<int64_t> ParseUtcTimestamp(std::string_view text);

}  // namespace ampoule::gate
