// The mock model's answers: the default plan, and scripts that replace it.
// Pure functions of the conversation: the same request gets the same answer.
// docs/mock-model.md.
//
// Default plan: each tool offered is called once, in the order offered, one
// per answer; the number of tool results already in the conversation says
// which comes next. The arguments are the first user message's text when it
// is a JSON object, else {}. Once every tool has been called (or when none
// is offered) the answer is the text "done: N tool call(s)", N being the
// number of tool results.
//
// Script: a JSON array of answers, given in turn per conversation (the
// number of assistant messages in the request picks the entry):
//   [{"tool_calls": [{"name": "lookup", "arguments": {"id": 7}}]},
//    {"text": "all done"}]
// Past its end the answer is the default plan's final text.
#pragma once

#include <string_view>
#include <vector>

#include "core/result.h"
#include "volent/mockmodel/conversation.h"

namespace volent::mockmodel {

using Script = std::vector<Answer>;

Answer DefaultPlan(const Conversation& conversation);

// Parses a script file's text. Errors name the entry and the field, e.g.
// "entry 2: tool_calls[0].arguments must be a JSON object".
core::Result<Script> ParseScript(std::string_view text);

Answer ScriptedAnswer(const Script& script, const Conversation& conversation);

}  // namespace volent::mockmodel
