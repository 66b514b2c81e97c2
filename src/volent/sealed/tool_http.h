// A sealed tool's HTTP request (its capability import, wit/volent-tool.wit),
// sent through the node's egress gate under the capability the manifest
// grants the tool, and the answer the tool is given for it.
//
// The request comes from the run's engine as canonical JSON; it is still the
// guest's, so it is read strictly: only "method" (GET, POST, PUT, PATCH,
// DELETE; default GET), "url", "headers" (an object of strings) and "body"
// (a string; not with GET). Anything else is answered {"error":"invalid"}
// without sending. The node sets Idempotency-Key itself (a tool may not):
// the step's key and the request's number, so a call repeated after a crash
// sends each request again under the same key, as an http tool does
// (docs/agent-runs.md). A denial is journaled under the step's key
// (HttpRequest::origin).
//
// Thread-safe: no state.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "volent/agent/agent_spec.h"
#include "volent/egress/gate.h"

namespace volent::sealed {

// The most response body a tool is given, a request's at most.
inline constexpr size_t kToolResponseCap = 256 * 1024;

struct ToolHttpExchange {
  nlohmann::json request;  // as the tool made it (the parsed canonical JSON)
  nlohmann::json answer;   // what the tool is given: the response or {"error","reason"}
};

// The tool's request as the exchange records it: the run's canonical JSON
// parsed, or {} when that is not an object (a broken engine).
nlohmann::json RecordedRequest(const std::string& canonical_request);

// Sends request number `number` (1, 2, ...) of the call whose step key is
// `step_key` through `gate` (null: denied, no gate) under `tool.capability`,
// within `timeout_ms`, and returns the exchange to record.
ToolHttpExchange SendToolRequest(const egress::Gate* gate, const agent::ToolDef& tool,
                                 const std::string& canonical_request, const std::string& step_key, int number,
                                 int timeout_ms);

// The answer for what the gate returned (wit/volent-tool.wit): status,
// headers and body ("body_base64" when the body is not UTF-8), or the
// gate's outcome as the error with its reason; with "credential": NAME
// when the gate added that credential to the request (its name only: the
// value never reaches the tool, egress/credentials.h).
nlohmann::json AnswerFor(const egress::SendResult& sent);

}  // namespace volent::sealed
