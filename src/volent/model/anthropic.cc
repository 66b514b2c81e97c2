// AnthropicRequestBody / ParseAnthropicAnswer (anthropic.h).
#include "volent/model/anthropic.h"

#include "volent/model/text.h"

namespace volent::model {
namespace {

using nlohmann::json;

json ToolResultBlock(const ToolResult& result) {
  json block = {{"type", "tool_result"}, {"tool_use_id", result.tool_call_id}, {"content", ToolResultText(result)}};
  if (result.is_error) block["is_error"] = true;
  return block;
}

json AssistantContent(const Message& m) {
  json content = json::array();
  // An empty text block is refused by the API: only text that is there.
  if (!m.text.empty()) content.push_back({{"type", "text"}, {"text", m.text}});
  for (const ToolCall& call : m.tool_calls) {
    content.push_back({{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", call.arguments}});
  }
  return content;
}

int64_t CountAt(const json& usage, const char* key) {
  if (!usage.is_object()) return 0;
  auto it = usage.find(key);
  return it != usage.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string ErrorMessageOf(const json& v) {
  if (!v.is_object() || !v.contains("error") || !v["error"].is_object()) return "";
  if (v.contains("type") && v["type"] != "error") return "";
  const json& e = v["error"];
  std::string type = e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : "";
  std::string message = e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>() : "";
  if (type.empty() && message.empty()) return "";
  if (type.empty()) return Excerpt(message);
  if (message.empty()) return Excerpt(type, 64);
  return Excerpt(type, 64) + ": " + Excerpt(message);
}

}  // namespace

json AnthropicRequestBody(const std::string& model, const Conversation& conversation) {
  json messages = json::array();
  for (size_t i = 0; i < conversation.messages.size(); ++i) {
    const Message& m = conversation.messages[i];
    switch (m.role) {
      case Message::Role::kUser: {
        // Text right after tool results joins their user message.
        if (i > 0 && conversation.messages[i - 1].role == Message::Role::kToolResults && !messages.empty()) {
          messages.back()["content"].push_back({{"type", "text"}, {"text", m.text}});
        } else {
          messages.push_back({{"role", "user"}, {"content", m.text}});
        }
        break;
      }
      case Message::Role::kAssistant:
        messages.push_back({{"role", "assistant"}, {"content", AssistantContent(m)}});
        break;
      case Message::Role::kToolResults: {
        json content = json::array();
        for (const ToolResult& r : m.tool_results) content.push_back(ToolResultBlock(r));
        messages.push_back({{"role", "user"}, {"content", std::move(content)}});
        break;
      }
    }
  }
  json body = {{"model", model}, {"max_tokens", conversation.max_tokens}};
  if (!conversation.system.empty()) body["system"] = conversation.system;
  body["messages"] = std::move(messages);
  if (!conversation.tools.empty()) {
    json tools = json::array();
    for (const ToolOffer& t : conversation.tools) {
      json tool = {{"name", t.name}};
      if (!t.description.empty()) tool["description"] = t.description;
      tool["input_schema"] = t.input_schema;
      tools.push_back(std::move(tool));
    }
    body["tools"] = std::move(tools);
  }
  return body;
}

core::Result<Answer> ParseAnthropicAnswer(std::string_view body) {
  const json v = ParseJson(body);
  if (v.is_discarded() || !v.is_object()) {
    return core::Error{"the answer is not a JSON object: " + Quoted(body, 120)};
  }
  if (std::string message = ErrorMessageOf(v); !message.empty()) {
    return core::Error{"the answer is an error: " + message};
  }
  auto content = v.find("content");
  if (content == v.end() || !content->is_array()) {
    return core::Error{"the answer has no \"content\" array"};
  }
  Answer answer;
  for (size_t i = 0; i < content->size(); ++i) {
    const json& block = (*content)[i];
    const std::string where = "content block " + std::to_string(i);
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) {
      return core::Error{"the answer's " + where + " has no \"type\""};
    }
    const std::string type = block["type"].get<std::string>();
    if (type == "text") {
      if (!block.contains("text") || !block["text"].is_string()) {
        return core::Error{"the answer's " + where + " (text) has no \"text\" string"};
      }
      if (!answer.text.empty()) answer.text += "\n";
      answer.text += block["text"].get<std::string>();
    } else if (type == "tool_use") {
      if (!block.contains("id") || !block["id"].is_string() || block["id"].get<std::string>().empty() ||
          !block.contains("name") || !block["name"].is_string()) {
        return core::Error{"the answer's " + where + " (tool_use) has no \"id\" or \"name\""};
      }
      ToolCall call{block["id"].get<std::string>(), block["name"].get<std::string>(), json::object()};
      if (block.contains("input")) {
        if (!block["input"].is_object()) {
          return core::Error{"the answer's tool call " + Quoted(call.id) + " (" + Excerpt(call.name, 64) +
                                ") has an \"input\" that is not a JSON object"};
        }
        call.arguments = block["input"];
      }
      answer.tool_calls.push_back(std::move(call));
    }
    // Other block types (thinking, ...) carry nothing the loop uses.
  }
  std::string stop;
  if (auto s = v.find("stop_reason"); s != v.end() && s->is_string()) stop = s->get<std::string>();
  answer.stop_detail = stop;
  answer.stop = stop == "tool_use" ? StopReason::kToolUse
              : (stop == "end_turn" || stop == "stop_sequence") ? StopReason::kEnd
              : stop == "max_tokens" ? StopReason::kMaxTokens
              : StopReason::kOther;
  if (auto u = v.find("usage"); u != v.end()) {
    answer.usage.input_tokens = CountAt(*u, "input_tokens");
    answer.usage.output_tokens = CountAt(*u, "output_tokens");
  }
  return answer;
}

std::string AnthropicErrorMessage(std::string_view body) { return ErrorMessageOf(ParseJson(body)); }

}  // namespace volent::model
