// OpenAI Chat Completions (POST /chat/completions under the endpoint) and
// the OpenAI-compatible servers that speak it (docs/models.md): the request
// body for a Conversation and the Answer in a response body.
//
// Mapping: `system` is a first {"role":"system"} message; a user message is
// {"role":"user","content":TEXT}; an assistant message is
// {"role":"assistant","content":TEXT or null,"tool_calls":[{id,
// "type":"function","function":{name, arguments}}]} where arguments is the
// JSON-encoded string of the arguments; each tool result is its own
// {"role":"tool","tool_call_id","content"} message (the API has no error
// flag: an error's content starts with "error: "). Tools are
// {"type":"function","function":{name, description, parameters}}.
// The length limit is "max_completion_tokens" for OpenAI itself and
// "max_tokens" for compatible servers (most know only that one).
//
// Thread-safe: pure functions. Never throws.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/model/conversation.h"

namespace volent::model {

inline constexpr char kOpenAiDefaultEndpoint[] = "https://api.openai.com/v1";

enum class OpenAiDialect { kOpenAi, kCompatible };

nlohmann::json OpenAiRequestBody(const std::string& model, const Conversation& conversation,
                                 OpenAiDialect dialect = OpenAiDialect::kOpenAi);

// A 2xx body: {"choices":[{"message":{"content","tool_calls"},"finish_reason"}],"usage"}.
// The first choice is read. A call's arguments must be a JSON object encoded
// as a string (an object as it is and "" as {} are accepted too: some
// compatible servers send them); anything else is an error naming the call.
// Tool calls with finish_reason "stop" (some compatible servers) stop as
// tool_use. Missing usage counts 0.
core::Result<Answer> ParseOpenAiAnswer(std::string_view body);

// The provider's own words from an error body
// ({"error":{"message","type","code"}}): "TYPE: MESSAGE" (or "CODE: ..."),
// or "" when `body` is not one. Cut to a few hundred characters.
std::string OpenAiErrorMessage(std::string_view body);

}  // namespace volent::model
