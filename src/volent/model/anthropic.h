// The Anthropic Messages API (POST /v1/messages; docs/models.md): the
// request body for a Conversation and the Answer in a response body.
//
// Mapping: `system` is the top-level system text; a user message is
// {"role":"user","content":TEXT}; an assistant message is content blocks
// (a text block when it has text, then one tool_use block {id,name,input}
// per call); tool results are one user message of tool_result blocks
// {tool_use_id, content, is_error when set}, and a user text that follows
// them joins that message as a text block (the API wants results first).
// Tools are {name, description, input_schema}.
//
// Thread-safe: pure functions. Never throws.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/model/conversation.h"

namespace volent::model {

inline constexpr char kAnthropicDefaultEndpoint[] = "https://api.anthropic.com";
inline constexpr char kAnthropicVersion[] = "2023-06-01";

nlohmann::json AnthropicRequestBody(const std::string& model, const Conversation& conversation);

// A 2xx body: {"content":[{"type":"text"|"tool_use",...}],"stop_reason","usage"}.
// Blocks of other types (thinking, ...) are skipped; missing usage counts 0.
// An error body ({"type":"error",...}) is an error here too.
core::Result<Answer> ParseAnthropicAnswer(std::string_view body);

// The provider's own words from an error body
// ({"type":"error","error":{"type","message"}}): "TYPE: MESSAGE", or ""
// when `body` is not one. Cut to a few hundred characters.
std::string AnthropicErrorMessage(std::string_view body);

}  // namespace volent::model
