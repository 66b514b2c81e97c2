// How the agent loop performs a tool call that has a side effect: the
// request it journals as the intent, and the function that carries it out
// (between the intent and the completion; docs/agent-runs.md).
//
// Performing is asynchronous: a performer starts the call and returns; the
// result comes later through a StepDone callback, so a call waiting for its
// answer holds no thread of the loop.
//
// Thread-safe: no shared mutable state.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "volent/agent/agent_spec.h"
#include "volent/agent/delays.h"
#include "volent/egress/gate.h"

namespace volent::agent {

// The intent of calling `tool` with `arguments`:
// {"type":"tool","tool":NAME,"kind":KIND,"method":M,"url":EXPANDED_URL,"arguments":{...}}.
nlohmann::json ToolRequest(const ToolDef& tool, const nlohmann::json& arguments);

// Receives the result of a step, to be journaled as its completion. Called
// exactly once per performed step, on any thread (a gate I/O thread, the
// delays' thread, or the very thread that started the step, before the
// performer returns).
using StepDone = std::function<void(nlohmann::json result)>;

// Starts a journaled tool request (as ToolRequest made it; after a crash,
// the one recorded first) under `idempotency_key` and returns; `done` gets
// the result to journal: {"type":"tool","tool":NAME,"outcome":O,...}.
// Never throws; a failure is a result (the model is told). The arguments
// are read before the performer returns.
using ToolPerformer = std::function<void(const ToolDef& tool, const nlohmann::json& request,
                                         const std::string& idempotency_key, StepDone done)>;

// The node's performer. HTTP tools go through `gate` (gate.SendAsync) under
// the tool's capability, with the header "Idempotency-Key: KEY" (also the
// request's origin, so a denial is journaled beside the step) and the
// arguments as a JSON body (POST, PUT, PATCH). A request that could not be
// sent, or whose answer was lost, is tried again with the same key after a
// pause on `delays` (3 attempts in all) before the failure is the result.
// Other kinds are not sent anywhere: their result is "unsupported" (the node
// hands wasm tools to sealed::SealedToolRunner instead, src/volent/sealed/).
// REQUIRES: `gate` and `delays` outlive every call started.
ToolPerformer GateToolPerformer(const egress::Gate& gate, Delays& delays);

// What the model is shown of a tool step's completion (the journaled
// `completion`, of a tool of kind `kind`; "" when the agent has no such
// tool), the one place that decides it for every kind:
//   a sealed tool (wasm, python, js) that answered: its result, the JSON
//     value it wrote, and nothing else;
//   an http tool that answered: {"status":S,"body":B} (and
//     "body_truncated":true when the journal cut the body): the response is
//     the tool's result; its headers were never kept;
//   anything else: {"outcome":O,"reason":WHY}.
// The rest of a completion (a sealed call's stdin, HTTP exchanges, receipt,
// fuel; the address an http tool reached) stays in the journal: a tool that
// reads a record and answers one fact sends the model that fact, not the
// record, and a response body the tool filtered out cannot reach the model
// around it. Whether it is an error is the outcome's: not "answered".
nlohmann::json ToolResultForModel(const std::string& kind, const nlohmann::json& completion);

// What the journal keeps of a tool's HTTP answer body: its JSON value when
// it is JSON of at most kMaxJournaledBody bytes nested within the one depth
// limit (core/json.h), else the body as a string, cut at kMaxJournaledBody
// on a UTF-8 boundary with invalid UTF-8 replaced (`truncated` says if it
// was cut). The tool's server is outside the node: any bytes are accepted.
inline constexpr size_t kMaxJournaledBody = 64 * 1024;
nlohmann::json JournaledBody(const std::string& body, bool& truncated);

// `url_template` with each {name} replaced by the argument `name`
// (a string or a number), percent-encoded; an unknown name is left empty.
std::string ExpandUrl(const std::string& url_template, const nlohmann::json& arguments);

}  // namespace volent::agent
