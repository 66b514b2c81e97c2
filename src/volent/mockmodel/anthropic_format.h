// The Anthropic Messages API as the mock model speaks it: POST /v1/messages.
// docs/mock-model.md, "Anthropic Messages".
//
// Requests: model, max_tokens, system (string or text blocks), messages
// (role user|assistant; content a string or blocks: text, image, document,
// tool_use {id, name, input}, tool_result {tool_use_id, content, is_error}),
// tools [{name, description, input_schema}]. Checked like the real API:
// every tool_result answers a tool_use of the message before, and every
// tool_use is answered in the next message. Unknown top-level fields are
// accepted (temperature, metadata, ...); stream: true is refused.
//
// Answers: {id, type: "message", role: "assistant", model, content,
// stop_reason: "tool_use"|"end_turn", stop_sequence: null, usage}.
// Errors: {type: "error", error: {type, message}}.
//
// Thread-safe: no state.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "volent/mockmodel/api_error.h"
#include "volent/mockmodel/conversation.h"

namespace volent::mockmodel {

// Headers first, as the API does: x-api-key must be present (and equal
// `expected_key` when one is set), then anthropic-version.
std::optional<ApiError> CheckAnthropicHeaders(const std::optional<std::string>& x_api_key,
                                              const std::optional<std::string>& anthropic_version,
                                              const std::optional<std::string>& expected_key);

// The error's message is what the 400 answer says, naming the field the way
// the API does ("messages.1.content.0.tool_use_id: ...").
core::Result<Conversation> ParseAnthropicRequest(std::string_view body);

std::string RenderAnthropicAnswer(const Answer& answer, const Conversation& conversation,
                                  const std::string& message_id);
std::string RenderAnthropicError(const ApiError& error);

}  // namespace volent::mockmodel
