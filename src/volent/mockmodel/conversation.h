// What the mock model needs to know of a request, whichever API it came in
// (Anthropic Messages or OpenAI Chat Completions), and what it answers.
// anthropic_format.h and openai_format.h translate between these and the
// wire; plan.h decides the answer. docs/mock-model.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace volent::mockmodel {

// The conversation of one request, reduced to what the plans read.
struct Conversation {
  std::string model;
  std::vector<std::string> tools;  // the names of the tools offered, in order
  std::string first_user_text;     // the text of the first user message
  size_t tool_results = 0;         // tool results anywhere in the messages
  size_t assistant_turns = 0;      // assistant messages (earlier answers)
  size_t input_bytes = 0;          // the request body's size, for usage
};

struct ToolCall {
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();  // always an object
};

// One answer: tool calls (stop reason tool_use / tool_calls), or, when there
// are none, final text (end_turn / stop).
struct Answer {
  std::vector<ToolCall> tool_calls;
  std::string text;
};

// Deterministic usage figures (about four bytes a token), so benchmarks
// that sum tokens get the same numbers every run.
struct Usage {
  size_t input_tokens = 0;
  size_t output_tokens = 0;
};
Usage EstimateUsage(const Conversation& conversation, const Answer& answer);

// A tool call's id, the same for the same conversation, turn and position
// (a re-issued request gets the same ids) and different across
// conversations. `prefix` is "toolu_" or "call_".
std::string ToolCallId(const std::string& prefix, const Conversation& conversation, size_t index);

}  // namespace volent::mockmodel
