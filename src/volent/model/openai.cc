// OpenAiRequestBody / ParseOpenAiAnswer (openai.h).
#include "volent/model/openai.h"

#include "core/json.h"
#include "volent/model/text.h"

namespace volent::model {
namespace {

using nlohmann::json;

int64_t CountAt(const json& usage, const char* key) {
  if (!usage.is_object()) return 0;
  auto it = usage.find(key);
  return it != usage.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string StringMember(const json& v, const char* key) {
  if (!v.is_object()) return "";
  auto it = v.find(key);
  return it != v.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string ErrorMessageOf(const json& v) {
  if (!v.is_object() || !v.contains("error")) return "";
  const json& e = v["error"];
  // Some compatible servers answer {"error":"text"}.
  if (e.is_string()) return e.get<std::string>().empty() ? "" : Excerpt(e.get<std::string>());
  if (!e.is_object()) return "";
  std::string kind = StringMember(e, "type");
  if (kind.empty()) kind = StringMember(e, "code");
  const std::string message = StringMember(e, "message");
  if (kind.empty() && message.empty()) return "";
  if (kind.empty()) return Excerpt(message);
  if (message.empty()) return Excerpt(kind, 64);
  return Excerpt(kind, 64) + ": " + Excerpt(message);
}

// One tool call of a response message, or an error naming it.
std::string ReadToolCall(const json& c, size_t index, ToolCall& call) {
  const std::string where = "the answer's tool call " + std::to_string(index);
  if (!c.is_object()) return where + " is not an object";
  call.id = StringMember(c, "id");
  if (call.id.empty()) return where + " has no \"id\"";
  const json* fn = c.contains("function") && c["function"].is_object() ? &c["function"] : nullptr;
  if (fn == nullptr) return where + " (" + Quoted(call.id) + ") has no \"function\" object";
  call.name = StringMember(*fn, "name");
  if (call.name.empty()) return where + " (" + Quoted(call.id) + ") has no function name";
  const std::string named = "the answer's tool call " + Quoted(call.id) + " (" + Excerpt(call.name, 64) + ")";
  auto args = fn->find("arguments");
  if (args == fn->end() || args->is_null()) {
    call.arguments = json::object();
    return "";
  }
  if (args->is_object()) {  // a compatible server that did not encode them
    call.arguments = *args;
    return "";
  }
  if (!args->is_string()) return named + " has \"arguments\" that are neither a JSON string nor an object";
  const std::string& text = args->get_ref<const std::string&>();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {  // "" for a call without arguments
    call.arguments = json::object();
    return "";
  }
  json parsed = ParseJson(text);
  if (parsed.is_discarded()) return named + " has arguments that are not valid JSON: " + Quoted(text, 120);
  if (!parsed.is_object()) return named + " has arguments that are not a JSON object: " + Quoted(text, 120);
  call.arguments = std::move(parsed);
  return "";
}

}  // namespace

json OpenAiRequestBody(const std::string& model, const Conversation& conversation, OpenAiDialect dialect) {
  json messages = json::array();
  if (!conversation.system.empty()) messages.push_back({{"role", "system"}, {"content", conversation.system}});
  for (const Message& m : conversation.messages) {
    switch (m.role) {
      case Message::Role::kUser:
        messages.push_back({{"role", "user"}, {"content", m.text}});
        break;
      case Message::Role::kAssistant: {
        json message = {{"role", "assistant"}, {"content", m.text.empty() ? json(nullptr) : json(m.text)}};
        if (!m.tool_calls.empty()) {
          json calls = json::array();
          for (const ToolCall& call : m.tool_calls) {
            calls.push_back({{"id", call.id},
                             {"type", "function"},
                             {"function",
                              {{"name", call.name},
                               {"arguments", core::DumpJson(call.arguments)}}}});
          }
          message["tool_calls"] = std::move(calls);
        }
        messages.push_back(std::move(message));
        break;
      }
      case Message::Role::kToolResults:
        for (const ToolResult& r : m.tool_results) {
          messages.push_back({{"role", "tool"},
                              {"tool_call_id", r.tool_call_id},
                              {"content", (r.is_error ? "error: " : "") + ToolResultText(r)}});
        }
        break;
    }
  }
  json body = {{"model", model}, {"messages", std::move(messages)}};
  body[dialect == OpenAiDialect::kOpenAi ? "max_completion_tokens" : "max_tokens"] = conversation.max_tokens;
  if (!conversation.tools.empty()) {
    json tools = json::array();
    for (const ToolOffer& t : conversation.tools) {
      json fn = {{"name", t.name}};
      if (!t.description.empty()) fn["description"] = t.description;
      fn["parameters"] = t.input_schema;
      tools.push_back({{"type", "function"}, {"function", std::move(fn)}});
    }
    body["tools"] = std::move(tools);
  }
  return body;
}

core::Result<Answer> ParseOpenAiAnswer(std::string_view body) {
  const json v = ParseJson(body);
  if (v.is_discarded() || !v.is_object()) {
    return core::Error{"the answer is not a JSON object: " + Quoted(body, 120)};
  }
  if (std::string message = ErrorMessageOf(v); !message.empty()) {
    return core::Error{"the answer is an error: " + message};
  }
  auto choices = v.find("choices");
  if (choices == v.end() || !choices->is_array() || choices->empty()) {
    return core::Error{"the answer has no \"choices\""};
  }
  const json& choice = (*choices)[0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
    return core::Error{"the answer's first choice has no \"message\" object"};
  }
  const json& message = choice["message"];
  Answer answer;
  if (auto content = message.find("content"); content != message.end() && !content->is_null()) {
    if (!content->is_string()) {
      return core::Error{"the answer's message \"content\" is neither text nor null"};
    }
    answer.text = content->get<std::string>();
  }
  if (auto calls = message.find("tool_calls"); calls != message.end() && !calls->is_null()) {
    if (!calls->is_array()) {
      return core::Error{"the answer's \"tool_calls\" is not an array"};
    }
    for (size_t i = 0; i < calls->size(); ++i) {
      ToolCall call;
      if (std::string why = ReadToolCall((*calls)[i], i, call); !why.empty()) {
        return core::Error{why};
      }
      answer.tool_calls.push_back(std::move(call));
    }
  }
  const std::string finish = StringMember(choice, "finish_reason");
  answer.stop_detail = finish;
  answer.stop = finish == "tool_calls" || finish == "function_call" ? StopReason::kToolUse
              : finish == "stop" ? (answer.tool_calls.empty() ? StopReason::kEnd : StopReason::kToolUse)
              : finish == "length" ? StopReason::kMaxTokens
              : StopReason::kOther;
  if (auto u = v.find("usage"); u != v.end()) {
    answer.usage.input_tokens = CountAt(*u, "prompt_tokens");
    answer.usage.output_tokens = CountAt(*u, "completion_tokens");
  }
  return answer;
}

std::string OpenAiErrorMessage(std::string_view body) { return ErrorMessageOf(ParseJson(body)); }

}  // namespace volent::model
