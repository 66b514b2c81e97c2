#include "volent/mockmodel/plan.h"

#include "core/json.h"
#include "volent/mockmodel/service.h"

namespace volent::mockmodel {
namespace {

std::string FinalText(const Conversation& conversation) {
  return "done: " + std::to_string(conversation.tool_results) + " tool call(s)";
}

core::Result<ToolCall> ParseToolCall(const nlohmann::json& value, const std::string& where) {
  if (!value.is_object()) return core::Error{where + " must be an object {\"name\", \"arguments\"}"};
  for (const auto& [key, unused] : value.items()) {
    if (key != "name" && key != "arguments") {
      return core::Error{where + ": unknown field '" + key + "' (a tool call has name and arguments)"};
    }
  }
  auto name = value.find("name");
  if (name == value.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return core::Error{where + ".name must be a non-empty string"};
  }
  ToolCall call;
  call.name = name->get<std::string>();
  auto arguments = value.find("arguments");
  if (arguments != value.end()) {
    if (!arguments->is_object()) return core::Error{where + ".arguments must be a JSON object"};
    call.arguments = *arguments;
  }
  return call;
}

core::Result<Answer> ParseEntry(const nlohmann::json& value, const std::string& where) {
  if (!value.is_object()) {
    return core::Error{where + " must be an object: {\"tool_calls\": [...]} or {\"text\": \"...\"}"};
  }
  auto calls = value.find("tool_calls");
  auto text = value.find("text");
  if (value.size() != 1 || (calls == value.end() && text == value.end())) {
    return core::Error{where + " must have exactly one field, tool_calls or text"};
  }
  Answer answer;
  if (text != value.end()) {
    if (!text->is_string()) return core::Error{where + ": text must be a string"};
    answer.text = text->get<std::string>();
    return answer;
  }
  if (!calls->is_array() || calls->empty()) {
    return core::Error{where + ": tool_calls must be a non-empty array"};
  }
  for (size_t i = 0; i < calls->size(); ++i) {
    auto call = ParseToolCall((*calls)[i], where + ": tool_calls[" + std::to_string(i) + "]");
    if (!call.ok()) return call.error();
    answer.tool_calls.push_back(std::move(*call));
  }
  return answer;
}

}  // namespace

Answer DefaultPlan(const Conversation& conversation) {
  Answer answer;
  if (conversation.tool_results >= conversation.tools.size()) {
    answer.text = FinalText(conversation);
    return answer;
  }
  ToolCall call;
  call.name = conversation.tools[conversation.tool_results];
  auto parsed = core::ParseJsonBounded(conversation.first_user_text, "the first user message", {kMaxBodyBytes});
  if (parsed.ok() && parsed->is_object()) call.arguments = std::move(*parsed);
  answer.tool_calls.push_back(std::move(call));
  return answer;
}

core::Result<Script> ParseScript(std::string_view text) {
  auto parsed = core::ParseJsonBounded(text, "the script", {kMaxBodyBytes});
  if (!parsed.ok()) return parsed.error();
  if (!parsed->is_array()) {
    return core::Error{"the script must be a JSON array of answers, e.g. "
                          "[{\"tool_calls\": [{\"name\": \"lookup\", \"arguments\": {}}]}, {\"text\": \"done\"}]"};
  }
  Script script;
  for (size_t i = 0; i < parsed->size(); ++i) {
    auto entry = ParseEntry((*parsed)[i], "entry " + std::to_string(i));
    if (!entry.ok()) return entry.error();
    script.push_back(std::move(*entry));
  }
  return script;
}

Answer ScriptedAnswer(const Script& script, const Conversation& conversation) {
  if (conversation.assistant_turns < script.size()) return script[conversation.assistant_turns];
  Answer answer;
  answer.text = FinalText(conversation);
  return answer;
}

}  // namespace volent::mockmodel
