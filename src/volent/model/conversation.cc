#include "volent/model/conversation.h"

#include "core/json.h"
#include "volent/model/text.h"

namespace volent::model {

using nlohmann::json;

Message Message::User(std::string text) {
  Message m;
  m.role = Role::kUser;
  m.text = std::move(text);
  return m;
}

Message Message::Assistant(std::string text, std::vector<ToolCall> calls) {
  Message m;
  m.role = Role::kAssistant;
  m.text = std::move(text);
  m.tool_calls = std::move(calls);
  return m;
}

Message Message::ToolResults(std::vector<ToolResult> results) {
  Message m;
  m.role = Role::kToolResults;
  m.tool_results = std::move(results);
  return m;
}

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kToolUse: return "tool_use";
    case StopReason::kEnd: return "end";
    case StopReason::kMaxTokens: return "max_tokens";
    case StopReason::kOther: break;
  }
  return "other";
}

std::string ToolResultText(const ToolResult& result) {
  if (result.content.is_string()) return result.content.get<std::string>();
  if (result.content.is_null()) return "";
  return core::DumpJson(result.content);
}

json AnswerToJson(const Answer& answer) {
  json calls = json::array();
  for (const ToolCall& call : answer.tool_calls) {
    calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
  }
  return {{"text", answer.text},
          {"tool_calls", std::move(calls)},
          {"stop", std::string(StopReasonName(answer.stop))},
          {"stop_detail", answer.stop_detail},
          {"usage", {{"input_tokens", answer.usage.input_tokens}, {"output_tokens", answer.usage.output_tokens}}}};
}

std::optional<Answer> AnswerFromJson(const json& value) {
  if (!value.is_object()) return std::nullopt;
  auto text = value.find("text");
  auto calls = value.find("tool_calls");
  auto stop = value.find("stop");
  if (text == value.end() || !text->is_string() || calls == value.end() || !calls->is_array() ||
      stop == value.end() || !stop->is_string()) {
    return std::nullopt;
  }
  Answer answer;
  answer.text = text->get<std::string>();
  for (const json& c : *calls) {
    if (!c.is_object() || !c.contains("id") || !c["id"].is_string() || !c.contains("name") || !c["name"].is_string()) {
      return std::nullopt;
    }
    answer.tool_calls.push_back({c["id"].get<std::string>(), c["name"].get<std::string>(), c.value("arguments", json::object())});
  }
  const std::string s = stop->get<std::string>();
  answer.stop = s == "tool_use" ? StopReason::kToolUse
              : s == "end" ? StopReason::kEnd
              : s == "max_tokens" ? StopReason::kMaxTokens
              : StopReason::kOther;
  if (auto d = value.find("stop_detail"); d != value.end() && d->is_string()) answer.stop_detail = d->get<std::string>();
  if (auto u = value.find("usage"); u != value.end() && u->is_object()) {
    if (auto i = u->find("input_tokens"); i != u->end() && i->is_number_integer()) answer.usage.input_tokens = i->get<int64_t>();
    if (auto o = u->find("output_tokens"); o != u->end() && o->is_number_integer()) answer.usage.output_tokens = o->get<int64_t>();
  }
  return answer;
}

}  // namespace volent::model
