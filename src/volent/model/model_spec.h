// What a model call needs of an agent manifest's spec.model (schemas/
// agent.schema.json): provider, model name, endpoint, the egress capability
// the call is sent under, and the per-call token budget.
//
// Thread-safe: no state.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace volent::model {

struct ModelSpec {
  std::string provider;    // "anthropic", "openai" or "openai-compatible"
  std::string name;        // the provider's model name
  std::string endpoint;    // "" for the provider's own (anthropic.h, openai.h)
  std::string capability;  // the egress capability; "" when the manifest names none
  int max_tokens_per_call = 0;  // budget.max_tokens_per_call; 0 when not set
};

// Reads spec.model of `manifest` (an Agent manifest as JSON, already checked
// by the manifest loader). Missing fields are left empty.
ModelSpec ReadModelSpec(const nlohmann::json& manifest);

}  // namespace volent::model
