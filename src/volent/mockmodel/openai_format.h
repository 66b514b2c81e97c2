// The OpenAI Chat Completions API as the mock model speaks it:
// POST /v1/chat/completions (also what OpenAI-compatible endpoints serve).
// docs/mock-model.md, "OpenAI Chat Completions".
//
// Requests: model, messages (role system|developer|user|assistant|tool;
// content a string, null for an assistant with tool_calls, or text parts;
// tool_calls [{id, type: "function", function: {name, arguments: a JSON
// string}}]; tool_call_id on tool messages), tools [{type: "function",
// function: {name, description, parameters}}]. Checked like the real API:
// every tool message answers a tool call of the assistant message before
// it, and every tool call is answered. Unknown top-level fields are
// accepted; stream: true and n > 1 are refused.
//
// Answers: {id: "chatcmpl-...", object: "chat.completion", created, model,
// choices: [{index: 0, message: {role: "assistant", content, tool_calls?},
// logprobs: null, finish_reason: "tool_calls"|"stop"}], usage}.
// Errors: {error: {message, type, param, code}}.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "volent/mockmodel/api_error.h"
#include "volent/mockmodel/conversation.h"

namespace volent::mockmodel {

// `authorization` must be "Bearer KEY" (and KEY equal `expected_key` when
// one is set).
std::optional<ApiError> CheckOpenAiHeaders(const std::optional<std::string>& authorization,
                                           const std::optional<std::string>& expected_key);

// The error's message is what the 400 answer says ("messages[1].tool_calls[0].id: ...").
core::Result<Conversation> ParseOpenAiRequest(std::string_view body);

// `created`: seconds since the epoch.
std::string RenderOpenAiAnswer(const Answer& answer, const Conversation& conversation, const std::string& id,
                               int64_t created);
std::string RenderOpenAiError(const ApiError& error);

}  // namespace volent::mockmodel
