// How the agent loop performs a tool call that has a side effect: the
// request it journals as the intent, and the function that carries it out
// (between the intent and the completion; docs/agent-runs.md).
//
// Thread-safe: no shared mutable state.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent_spec.h"
#include "egress/gate.h"

namespace volent::agent {

// The intent of calling `tool` with `arguments`:
// {"type":"tool","tool":NAME,"kind":KIND,"method":M,"url":EXPANDED_URL,"arguments":{...}}.
nlohmann::json ToolRequest(const ToolDef& tool, const nlohmann::json& arguments);

// Carries out a journaled tool request (as ToolRequest made it; after a
// crash, the one recorded first) under `idempotency_key`, and returns the
// result to journal: {"type":"tool","tool":NAME,"outcome":O,...}. Never
// throws; a failure is a result (the model is told).
using ToolPerformer =
    std::function<nlohmann::json(const ToolDef& tool, const nlohmann::json& request, const std::string& idempotency_key)>;

// The node's performer. HTTP tools go through `gate` (REQUIRES: it outlives
// the performer) under the tool's capability, with the header
// "Idempotency-Key: KEY" and the arguments as a JSON body (POST, PUT,
// PATCH). A request that could not be sent, or whose answer was lost, is
// retried with the same key a few times before the failure is the result.
// Wasm tools are not run by this version: their result says so.
ToolPerformer GateToolPerformer(const egress::Gate& gate);

// `url_template` with each {name} replaced by the argument `name`
// (a string or a number), percent-encoded; an unknown name is left empty.
std::string ExpandUrl(const std::string& url_template, const nlohmann::json& arguments);

}  // namespace volent::agent
