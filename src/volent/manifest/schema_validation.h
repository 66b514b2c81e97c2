// JSON Schema draft-07 validation with valijson, configured in one place:
// the manifest code and the JSON-Schema-Test-Suite test both use this, so
// the suite proves the validator exactly as manifests are checked.
//
// Configuration: draft-07 parser, strict types (1 and "1" differ), no
// fetcher for remote references (a schema that names a remote $ref is
// refused when compiled), exceptions turned on and caught here.
//
// Thread-safe: a CompiledSchema is immutable after construction and may be
// shared; each thread validates with its own validator. Never throws.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace valijson {
class Schema;
}

namespace volent::manifest {

struct SchemaError {
  std::string pointer;      // JSON Pointer of the failing value in the document
  std::string description;  // valijson's description (for logs and tests, never shown)
  std::string message;      // the same in our words (SchemaMessage)
  bool summary = false;     // a summary of nested errors, which say more
};

// valijson's description of a failure in our words, e.g. "Object should have
// no more than 64 properties." -> "must have at most 64 fields". Every
// message valijson 1.0's validator produces has its row; one it does not
// know (a later valijson) becomes "does not match the schema here", so
// valijson's own words never reach a person. `summary` (if given) is set
// for the lines that only summarise nested failures ("Failed to validate
// item #0 in array.").
std::string SchemaMessage(const std::string& description, bool* summary = nullptr);

class CompiledSchema {
 public:
  explicit CompiledSchema(const nlohmann::json& schema);
  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

  // "" when the schema compiled; else why not (Validate then fails all).
  const std::string& error() const { return error_; }

  // True when `document` is valid. With `errors`, every failure is listed
  // (valijson's summaries of nested failures included).
  bool Validate(const nlohmann::json& document, std::vector<SchemaError>* errors) const;

 private:
  std::unique_ptr<valijson::Schema> schema_;
  std::string error_;
};

}  // namespace volent::manifest
