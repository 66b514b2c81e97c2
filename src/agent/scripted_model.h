// THE SCRIPTED MODEL: a deterministic stand-in for a language model, used by
// the agent loop until model providers are wired in (docs/agent-runs.md). It
// calls no provider and reads nothing but what it is given.
//
// Its plan: call each tool of the agent once, in manifest order, one tool
// per turn, with the run's input as the arguments; after the last tool's
// result, answer with a summary of the results.
//
// Thread-safe: no state.
#pragma once

#include <nlohmann/json.hpp>

#include "agent/agent_spec.h"

namespace volent::agent {

inline constexpr char kScriptedModelName[] = "scripted stand-in";

// The model's answer for turn `turn` (0-based) of a run, given the results
// of the tool calls so far (`results`, one per earlier turn). Either
// {"tool_calls":[{"tool":NAME,"arguments":{...}}]} or {"final":{...}}.
nlohmann::json ScriptedModelTurn(const AgentSpec& agent, const nlohmann::json& input, size_t turn,
                                 const nlohmann::json& results);

}  // namespace volent::agent
