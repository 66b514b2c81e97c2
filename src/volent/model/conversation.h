// A conversation with a language model and the model's answer, in a form
// that belongs to no provider (docs/models.md). The provider codecs
// (anthropic.h, openai.h) turn a Conversation into a request body and a
// response body into an Answer; the agent loop builds Conversations and
// journals Answers (AnswerToJson / AnswerFromJson).
//
// Thread-safe: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace volent::model {

// A tool the model asked for: `arguments` is a JSON value (an object for
// every provider we speak), never the provider's encoding of it.
struct ToolCall {
  std::string id;  // the provider's id, echoed back in the result
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();
};

// What a tool call gave. `content` is sent as text when it is a JSON
// string, otherwise as its compact JSON text.
struct ToolResult {
  std::string tool_call_id;
  nlohmann::json content;
  bool is_error = false;
};

struct Message {
  enum class Role { kUser, kAssistant, kToolResults };
  Role role = Role::kUser;
  std::string text;                       // kUser, kAssistant ("" when the assistant only called tools)
  std::vector<ToolCall> tool_calls;       // kAssistant
  std::vector<ToolResult> tool_results;   // kToolResults, answering the previous assistant message

  static Message User(std::string text);
  static Message Assistant(std::string text, std::vector<ToolCall> calls = {});
  static Message ToolResults(std::vector<ToolResult> results);
};

// A tool offered to the model; `input_schema` is a JSON Schema object.
struct ToolOffer {
  std::string name;
  std::string description;
  nlohmann::json input_schema = nlohmann::json{{"type", "object"}};
};

struct Conversation {
  std::string system;               // system instructions; "" for none
  std::vector<Message> messages;    // oldest first; the first is the user's
  std::vector<ToolOffer> tools;
  int max_tokens = 4096;            // the longest answer the model may give (> 0)
};

enum class StopReason {
  kToolUse,    // the model asks for the tool calls in the answer
  kEnd,        // the model is done (end of turn, or a stop sequence)
  kMaxTokens,  // cut at max_tokens
  kOther,      // anything else (a refusal, a content filter, ...): see stop_detail
};
std::string_view StopReasonName(StopReason reason);  // "tool_use", "end", "max_tokens", "other"

struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

struct Answer {
  std::string text;                  // the text blocks, joined by "\n"; "" for none
  std::vector<ToolCall> tool_calls;  // in the order the model gave them
  StopReason stop = StopReason::kOther;
  std::string stop_detail;           // the provider's own word ("end_turn", "tool_calls", ...)
  Usage usage;
};

// A response body read into an Answer, or why it could not be: the parsers
// (ParseAnthropicAnswer, ParseOpenAiAnswer) return core::Result<Answer>,
// whose message is for a person ("the answer's tool call \"c1\" (lookup) has
// arguments that are not JSON: ...") and never repeats more than a short
// piece of the body.

// The text a tool result is sent as: a JSON string as it is, any other
// value as its compact JSON (invalid UTF-8 replaced).
std::string ToolResultText(const ToolResult& result);

// The journal form of an answer:
// {"text","tool_calls":[{"id","name","arguments"}],"stop","stop_detail","usage":{"input_tokens","output_tokens"}}.
nlohmann::json AnswerToJson(const Answer& answer);
// Reads AnswerToJson's form back; nullopt when `value` is not one.
std::optional<Answer> AnswerFromJson(const nlohmann::json& value);

}  // namespace volent::model
