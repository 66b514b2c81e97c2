// The gate's policy (docs/gate.md): whose receipts it trusts, which kernel
// it pins, how old data may be, how much fuel it will spend re-checking a
// run, the least isolation a run must have had, where decisions and sent
// actions go, and, per action kind, where in the signed output each
// asserted field must come from.
//
// Parsing is strict like the draft's: unknown fields are errors. Paths are
// resolved against the policy file's folder.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/run/run_record.h"
#include "core/result.h"

namespace ampoule::gate {

// Where one kind of action's fields must come from. A pattern is a JSON
// Pointer in which a token `*` stands for any array index (`/orders/*/amount`
// admits /orders/0/amount, /orders/17/amount). Checked by CheckSources
// (field_check.h); a draft that breaks it is held.
struct SourceRule {
  // Field name -> the pattern its pointer must match. When given, a field
  // not named here is held too: every field's source is pinned.
  std::map<std::string, std::string> from;
  // Every field's pointer must lie under one element matching this pattern
  // (`/orders/*`: all from the same order), so that a recipient cannot be
  // paired with another record's amount.
  std::optional<std::string> same_record;
  // `"same_record": false`: the fields may come from different records.
  // Without either, the default holds: every field comes from one record,
  // the object its pointer names a member of (CheckSources).
  bool records_may_differ = false;
};

struct Policy {
  std::vector<std::string> trusted_keys;  // public key files, at least one
  std::string kernel_sha256;              // 64 lowercase hex digits
  uint64_t max_data_age_seconds = 0;
  uint64_t replay_fuel_ceiling = 0;
  // min_isolation: "none", "jail" or "vm" (run::ParseIsolation); absent,
  // jail. A receipt below it, or that does not say (unknown), is refused
  // unless it is none.
  run::Isolation min_isolation = run::Isolation::kJail;
  std::string decision_log;  // SQLite file
  std::string outbox;        // folder
  std::map<std::string, SourceRule> kinds;  // kind (in NFC) -> its rule; a kind not named has the default rule
};

core::Result<Policy> ParsePolicy(std::string_view json_text, const std::filesystem::path& base_dir);

// Reads and parses the policy file at `path`; errors name the file.
core::Result<Policy> LoadPolicy(const std::string& path);

}  // namespace ampoule::gate
