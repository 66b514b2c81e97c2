// The gate's policy (docs/gate.md): whose receipts it trusts, which kernel
// it pins, how old data may be, how much fuel it will spend re-checking a
// run, and where decisions and sent actions go.
//
// Parsing is strict like the draft's: unknown fields are errors. Paths are
// resolved against the policy file's folder.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ampoule::gate {

struct Policy {
  std::vector<std::string> trusted_keys;  // public key files, at least one
  std::string kernel_sha256;              // 64 lowercase hex digits
  uint64_t max_data_age_seconds = 0;
  uint64_t replay_fuel_ceiling = 0;
  std::string decision_log;  // SQLite file
  std::string outbox;        // folder
};

Result<Policy> ParsePolicy(std::string_view json_text, const std::filesystem::path& base_dir);

// Reads and parses the policy file at `path`; errors name the file.
Result<Policy> LoadPolicy(const std::string& path);

}  // namespace ampoule::gate
