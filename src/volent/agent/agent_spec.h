// The parts of an agent manifest the agent loop needs, read from the
// manifest's JSON (already checked by the manifest loader when applied).
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/model/model_spec.h"

namespace volent::agent {

struct ToolDef {
  std::string name;
  std::string description;  // offered to the model; "" when none
  nlohmann::json input_schema = nlohmann::json{{"type", "object"}};  // offered to the model
  std::string kind;        // "http" or "wasm"
  std::string capability;  // "" when none
  std::string method;      // http tools: GET, POST, ...
  std::string url;         // http tools: a URL template with {argument} placeholders
  std::string component;   // wasm tools: the module's SHA-256, 64 hex digits (without "sha256:")
  int time_ms = 0;         // limits.time_ms; 0 when not set
  int memory_mb = 0;       // limits.memory_mb; 0 when not set
  int files_mb = 0;        // limits.files_mb; 0 when not set
  uint64_t fuel = 0;       // limits.fuel; 0 when not set
  bool needs_approval = false;
};

// Model calls a run may make when the manifest sets no
// budget.max_calls_per_run: a model that never stops asking for tools ends
// as a failed run, not as an endless one.
inline constexpr int kDefaultMaxCallsPerRun = 100;

struct AgentSpec {
  std::string name;
  std::string instructions;    // spec.instructions: the model's system text; "" when none
  model::ModelSpec model;      // spec.model
  int max_calls_per_run = kDefaultMaxCallsPerRun;  // spec.model.budget.max_calls_per_run
  std::vector<ToolDef> tools;  // in manifest order
  const ToolDef* Find(const std::string& tool) const;
};

// Reads `manifest` (an Agent manifest as JSON). Fields the loop does not use
// are ignored; missing ones are left empty.
AgentSpec ReadAgentSpec(const nlohmann::json& manifest);

}  // namespace volent::agent
