#include "volent/mockmodel/openai_format.h"

#include <set>
#include <vector>

#include "core/json.h"
#include "volent/mockmodel/service.h"
#include "volent/mockmodel/tool_name.h"

namespace volent::mockmodel {
namespace {

using json = nlohmann::json;

core::Error Invalid(const std::string& path, const std::string& what) {
  return core::Error{path + ": " + what};
}

bool IsNonEmptyString(const json& v) { return v.is_string() && !v.get_ref<const std::string&>().empty(); }

// A message's content: a string, or content parts of the `allowed` types.
// Returns the text (text parts joined by newlines).
core::Result<std::string> ContentText(const json& content, const std::string& at,
                                         const std::set<std::string>& allowed) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return Invalid(at, "must be a string or an array of content parts");
  std::string text;
  bool first = true;
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    std::string pat = at + "[" + std::to_string(i) + "]";
    if (!part.is_object()) return Invalid(pat, "a content part must be an object with a type");
    auto type = part.find("type");
    if (type == part.end() || !type->is_string()) return Invalid(pat + ".type", "missing required parameter");
    const std::string& t = type->get_ref<const std::string&>();
    if (!allowed.count(t)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      return Invalid(pat + ".type", "'" + t + "' is not allowed here (" + list + ")");
    }
    if (t == "text") {
      auto value = part.find("text");
      if (value == part.end() || !value->is_string()) return Invalid(pat + ".text", "missing required parameter (a string)");
      if (!first) text += "\n";
      text += value->get<std::string>();
      first = false;
    }
  }
  return text;
}

struct MessageView {
  std::string role;
  std::string text;
  std::vector<std::string> tool_call_ids;  // assistant
  std::string answers;                     // tool: the tool_call_id
};

core::Result<MessageView> ParseMessage(const json& m, const std::string& at) {
  if (!m.is_object()) return Invalid(at, "a message must be an object {role, content}");
  MessageView view;
  auto role = m.find("role");
  if (role == m.end() || !role->is_string()) return Invalid(at + ".role", "missing required parameter");
  view.role = role->get<std::string>();
  auto content = m.find("content");
  bool has_content = content != m.end() && !content->is_null();
  if (view.role == "system" || view.role == "developer" || view.role == "user") {
    if (!has_content) return Invalid(at + ".content", "missing required parameter");
    std::set<std::string> parts = view.role == "user" ? std::set<std::string>{"text", "image_url", "input_audio", "file"}
                                                      : std::set<std::string>{"text"};
    auto text = ContentText(*content, at + ".content", parts);
    if (!text.ok()) return text.error();
    view.text = std::move(*text);
  } else if (view.role == "assistant") {
    auto calls = m.find("tool_calls");
    bool has_calls = calls != m.end() && !calls->is_null();
    if (!has_content && !has_calls) {
      return Invalid(at + ".content", "an assistant message needs content or tool_calls");
    }
    if (has_content) {
      auto text = ContentText(*content, at + ".content", {"text", "refusal"});
      if (!text.ok()) return text.error();
      view.text = std::move(*text);
    }
    if (has_calls) {
      if (!calls->is_array()) return Invalid(at + ".tool_calls", "must be an array");
      for (size_t i = 0; i < calls->size(); ++i) {
        const json& call = (*calls)[i];
        std::string cat = at + ".tool_calls[" + std::to_string(i) + "]";
        if (!call.is_object()) return Invalid(cat, "a tool call must be an object {id, type, function}");
        auto id = call.find("id");
        if (id == call.end() || !IsNonEmptyString(*id)) return Invalid(cat + ".id", "missing required parameter");
        auto type = call.find("type");
        if (type == call.end() || *type != "function") return Invalid(cat + ".type", "must be \"function\"");
        auto function = call.find("function");
        if (function == call.end() || !function->is_object()) {
          return Invalid(cat + ".function", "missing required parameter (an object {name, arguments})");
        }
        auto name = function->find("name");
        if (name == function->end() || !name->is_string()) return Invalid(cat + ".function.name", "missing required parameter");
        auto arguments = function->find("arguments");
        if (arguments == function->end() || !arguments->is_string()) {
          return Invalid(cat + ".function.arguments", "must be a string (the arguments as JSON text), not " +
                                                          std::string(arguments == function->end() ? "missing"
                                                                                                    : arguments->type_name()));
        }
        view.tool_call_ids.push_back(id->get<std::string>());
      }
    }
  } else if (view.role == "tool") {
    auto id = m.find("tool_call_id");
    if (id == m.end() || !IsNonEmptyString(*id)) return Invalid(at + ".tool_call_id", "missing required parameter");
    view.answers = id->get<std::string>();
    if (!has_content) return Invalid(at + ".content", "missing required parameter");
    auto text = ContentText(*content, at + ".content", {"text"});
    if (!text.ok()) return text.error();
  } else {
    return Invalid(at + ".role", "'" + view.role + "' is not one of system, developer, user, assistant, tool");
  }
  return view;
}

// Tool messages follow the assistant message whose calls they answer, and
// every call is answered before the next other message.
core::Status CheckToolPairs(const std::vector<MessageView>& views) {
  std::set<std::string> open;      // calls of the last assistant message not yet answered
  bool after_calls = false;        // inside the tool messages after an assistant's calls
  for (size_t i = 0; i < views.size(); ++i) {
    const MessageView& v = views[i];
    std::string at = "messages[" + std::to_string(i) + "]";
    if (v.role == "tool") {
      if (!after_calls) {
        return Invalid(at + ".role", "messages with role 'tool' must be a response to a preceding message with 'tool_calls'");
      }
      if (!open.erase(v.answers)) {
        return Invalid(at + ".tool_call_id", "'" + v.answers + "' is not a tool call of the preceding assistant message "
                                                                "(or was answered already)");
      }
      continue;
    }
    if (!open.empty()) {
      std::string ids;
      for (const auto& id : open) ids += (ids.empty() ? "" : ", ") + id;
      return Invalid(at, "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                         "'tool_call_id'. The following tool_call_ids did not have response messages: " + ids);
    }
    after_calls = v.role == "assistant" && !v.tool_call_ids.empty();
    if (after_calls) open.insert(v.tool_call_ids.begin(), v.tool_call_ids.end());
  }
  return core::Status::Ok();
}

core::Status ParseTools(const json& body, Conversation& conversation) {
  auto tools = body.find("tools");
  if (tools == body.end() || tools->is_null()) return core::Status::Ok();
  if (!tools->is_array()) return Invalid("tools", "must be an array of {type: \"function\", function: {...}}");
  for (size_t i = 0; i < tools->size(); ++i) {
    const json& tool = (*tools)[i];
    std::string at = "tools[" + std::to_string(i) + "]";
    if (!tool.is_object()) return Invalid(at, "a tool must be an object {type: \"function\", function}");
    auto type = tool.find("type");
    if (type == tool.end() || *type != "function") return Invalid(at + ".type", "must be \"function\"");
    auto function = tool.find("function");
    if (function == tool.end() || !function->is_object()) {
      return Invalid(at + ".function", "missing required parameter (an object {name, description, parameters})");
    }
    auto name = function->find("name");
    if (name == function->end() || !name->is_string()) return Invalid(at + ".function.name", "missing required parameter");
    if (!IsToolName(name->get_ref<const std::string&>())) {
      return Invalid(at + ".function.name", "must be 1 to 64 of a-z, A-Z, 0-9, underscores and dashes");
    }
    auto description = function->find("description");
    if (description != function->end() && !description->is_string()) {
      return Invalid(at + ".function.description", "must be a string");
    }
    auto parameters = function->find("parameters");
    if (parameters != function->end() && !parameters->is_object()) {
      return Invalid(at + ".function.parameters", "must be a JSON Schema object");
    }
    conversation.tools.push_back(name->get<std::string>());
  }
  return core::Status::Ok();
}

}  // namespace

std::optional<ApiError> CheckOpenAiHeaders(const std::optional<std::string>& authorization,
                                           const std::optional<std::string>& expected_key) {
  constexpr std::string_view kBearer = "Bearer ";
  if (!authorization || authorization->size() <= kBearer.size() ||
      std::string_view(*authorization).substr(0, kBearer.size()) != kBearer) {
    return ApiError{ErrorKind::kAuthentication,
                    "You didn't provide an API key. You need to provide your API key in an Authorization header "
                    "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."};
  }
  if (expected_key && authorization->substr(kBearer.size()) != *expected_key) {
    return ApiError{ErrorKind::kAuthentication, "Incorrect API key provided.", "invalid_api_key"};
  }
  return std::nullopt;
}

core::Result<Conversation> ParseOpenAiRequest(std::string_view text) {
  auto parsed = core::ParseJsonBounded(text, "the body", {kMaxBodyBytes});
  if (!parsed.ok()) return parsed.error();
  const json& body = *parsed;
  if (!body.is_object()) return core::Error{"the body must be a JSON object {model, messages}"};
  Conversation conversation;
  conversation.input_bytes = text.size();
  try {
    auto model = body.find("model");
    if (model == body.end() || !IsNonEmptyString(*model)) return Invalid("model", "missing required parameter (a non-empty string)");
    conversation.model = model->get<std::string>();
    auto stream = body.find("stream");
    if (stream != body.end() && !stream->is_null() && !stream->is_boolean()) return Invalid("stream", "must be a boolean");
    if (stream != body.end() && stream->is_boolean() && stream->get<bool>()) {
      return Invalid("stream", "streaming is not supported by the mock model; send stream: false or leave it out");
    }
    auto n = body.find("n");
    if (n != body.end() && !n->is_null() && !(n->is_number_integer() && n->get<long long>() == 1)) {
      return Invalid("n", "the mock model gives one choice; send n: 1 or leave it out");
    }
    auto messages = body.find("messages");
    if (messages == body.end()) return Invalid("messages", "missing required parameter");
    if (!messages->is_array() || messages->empty()) return Invalid("messages", "must be a non-empty array of messages");
    std::vector<MessageView> views;
    for (size_t i = 0; i < messages->size(); ++i) {
      auto view = ParseMessage((*messages)[i], "messages[" + std::to_string(i) + "]");
      if (!view.ok()) return view.error();
      views.push_back(std::move(*view));
    }
    CORE_RETURN_IF_ERROR(CheckToolPairs(views));
    CORE_RETURN_IF_ERROR(ParseTools(body, conversation));
    bool first_user = true;
    for (const auto& view : views) {
      if (view.role == "assistant") ++conversation.assistant_turns;
      if (view.role == "tool") ++conversation.tool_results;
      if (view.role == "user" && first_user) {
        conversation.first_user_text = view.text;
        first_user = false;
      }
    }
  } catch (const nlohmann::json::exception&) {
    // Every access above is type-checked first; this is a backstop.
    return core::Error{"the body does not have the shape of a Chat Completions request"};
  }
  return conversation;
}

std::string RenderOpenAiAnswer(const Answer& answer, const Conversation& conversation, const std::string& id,
                               int64_t created) {
  json message;
  message["role"] = "assistant";
  if (answer.tool_calls.empty()) {
    message["content"] = answer.text;
  } else {
    message["content"] = nullptr;
    json calls = json::array();
    for (size_t i = 0; i < answer.tool_calls.size(); ++i) {
      const ToolCall& call = answer.tool_calls[i];
      calls.push_back({{"id", ToolCallId("call_", conversation, i)},
                       {"type", "function"},
                       {"function", {{"name", call.name}, {"arguments", core::DumpJson(call.arguments)}}}});
    }
    message["tool_calls"] = std::move(calls);
  }
  json choice;
  choice["index"] = 0;
  choice["message"] = std::move(message);
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = answer.tool_calls.empty() ? "stop" : "tool_calls";
  Usage usage = EstimateUsage(conversation, answer);
  json out;
  out["id"] = id;
  out["object"] = "chat.completion";
  out["created"] = created;
  out["model"] = conversation.model;
  out["choices"] = json::array({std::move(choice)});
  out["usage"] = {{"prompt_tokens", usage.input_tokens},
                  {"completion_tokens", usage.output_tokens},
                  {"total_tokens", usage.input_tokens + usage.output_tokens}};
  return core::DumpJson(out);
}

std::string RenderOpenAiError(const ApiError& error) {
  // The service says invalid_request_error for all of these; `code` tells
  // a wrong key apart.
  json code = error.code.empty() ? json(nullptr) : json(error.code);
  json out;
  out["error"] = {{"message", error.message}, {"type", "invalid_request_error"}, {"param", nullptr}, {"code", code}};
  return core::DumpJson(out);
}

}  // namespace volent::mockmodel
