#include "volent/mockmodel/anthropic_format.h"

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

// text blocks only (system prompts, tool_result content): ok or the error.
core::Status CheckTextBlocks(const json& blocks, const std::string& path, bool allow_images) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    const json& b = blocks[i];
    std::string at = path + "." + std::to_string(i);
    if (!b.is_object()) return Invalid(at, "a content block must be an object with a type");
    auto type = b.find("type");
    if (type == b.end() || !type->is_string()) return Invalid(at + ".type", "Field required");
    if (*type == "text") {
      auto text = b.find("text");
      if (text == b.end() || !text->is_string()) return Invalid(at + ".text", "Field required (a string)");
    } else if (!(allow_images && *type == "image")) {
      return Invalid(at + ".type", "'" + type->get<std::string>() + "' is not allowed here (text" +
                                       (allow_images ? ", image" : "") + ")");
    }
  }
  return core::Status::Ok();
}

struct MessageView {
  std::string role;
  std::string text;                      // text blocks joined by newlines
  std::vector<std::string> tool_use_ids;
  std::vector<std::string> tool_result_ids;
};

core::Result<MessageView> ParseMessage(const json& m, const std::string& at) {
  if (!m.is_object()) return Invalid(at, "a message must be an object {role, content}");
  MessageView view;
  auto role = m.find("role");
  if (role == m.end()) return Invalid(at + ".role", "Field required");
  if (!role->is_string() || (*role != "user" && *role != "assistant")) {
    return Invalid(at + ".role", "must be \"user\" or \"assistant\" (the system prompt goes in the top-level system field)");
  }
  view.role = role->get<std::string>();
  auto content = m.find("content");
  if (content == m.end()) return Invalid(at + ".content", "Field required");
  if (content->is_string()) {
    view.text = content->get<std::string>();
    return view;
  }
  if (!content->is_array()) return Invalid(at + ".content", "must be a string or an array of content blocks");
  bool first_text = true;
  for (size_t i = 0; i < content->size(); ++i) {
    const json& b = (*content)[i];
    std::string bat = at + ".content." + std::to_string(i);
    if (!b.is_object()) return Invalid(bat, "a content block must be an object with a type");
    auto type = b.find("type");
    if (type == b.end() || !type->is_string()) return Invalid(bat + ".type", "Field required");
    const std::string& t = type->get_ref<const std::string&>();
    if (t == "text") {
      auto text = b.find("text");
      if (text == b.end() || !text->is_string()) return Invalid(bat + ".text", "Field required (a string)");
      if (!first_text) view.text += "\n";
      view.text += text->get<std::string>();
      first_text = false;
    } else if (t == "tool_use") {
      if (view.role != "assistant") return Invalid(bat, "tool_use blocks are only allowed in assistant messages");
      auto id = b.find("id");
      if (id == b.end() || !IsNonEmptyString(*id)) return Invalid(bat + ".id", "Field required (a non-empty string)");
      auto name = b.find("name");
      if (name == b.end() || !name->is_string()) return Invalid(bat + ".name", "Field required (a string)");
      if (!IsToolName(name->get_ref<const std::string&>())) {
        return Invalid(bat + ".name", "String should match pattern '^[a-zA-Z0-9_-]{1,64}$'");
      }
      auto input = b.find("input");
      if (input == b.end() || !input->is_object()) return Invalid(bat + ".input", "Field required (an object)");
      view.tool_use_ids.push_back(id->get<std::string>());
    } else if (t == "tool_result") {
      if (view.role != "user") return Invalid(bat, "tool_result blocks are only allowed in user messages");
      auto id = b.find("tool_use_id");
      if (id == b.end() || !IsNonEmptyString(*id)) {
        return Invalid(bat + ".tool_use_id", "Field required (the id of the tool_use it answers)");
      }
      auto result = b.find("content");
      if (result != b.end() && !result->is_string()) {
        if (!result->is_array()) return Invalid(bat + ".content", "must be a string or an array of content blocks");
        CORE_RETURN_IF_ERROR(CheckTextBlocks(*result, bat + ".content", /*allow_images=*/true));
      }
      auto is_error = b.find("is_error");
      if (is_error != b.end() && !is_error->is_boolean()) return Invalid(bat + ".is_error", "must be a boolean");
      view.tool_result_ids.push_back(id->get<std::string>());
    } else if (t == "image" || t == "document") {
      if (view.role != "user") return Invalid(bat, t + " blocks are only allowed in user messages");
    } else {
      return Invalid(bat + ".type", "'" + t + "' is not a content block type the mock model knows "
                                    "(text, image, document, tool_use, tool_result)");
    }
  }
  return view;
}

std::string Joined(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

// Each tool_result answers a tool_use of the message just before; each
// tool_use is answered in the message just after (when there is one).
core::Status CheckToolPairs(const std::vector<MessageView>& views) {
  for (size_t i = 0; i < views.size(); ++i) {
    std::set<std::string> offered;
    if (i > 0) offered.insert(views[i - 1].tool_use_ids.begin(), views[i - 1].tool_use_ids.end());
    std::vector<std::string> unexpected;
    for (const auto& id : views[i].tool_result_ids) {
      if (!offered.count(id)) unexpected.push_back(id);
    }
    if (!unexpected.empty()) {
      return Invalid("messages." + std::to_string(i),
                     "unexpected `tool_use_id` found in `tool_result` blocks: " + Joined(unexpected) +
                         ". Each `tool_result` block must have a corresponding `tool_use` block in the previous message.");
    }
    if (i > 0 && !views[i - 1].tool_use_ids.empty()) {
      std::set<std::string> answered(views[i].tool_result_ids.begin(), views[i].tool_result_ids.end());
      std::vector<std::string> missing;
      for (const auto& id : views[i - 1].tool_use_ids) {
        if (!answered.count(id)) missing.push_back(id);
      }
      if (!missing.empty()) {
        return Invalid("messages." + std::to_string(i),
                       "`tool_use` ids were found without `tool_result` blocks immediately after: " + Joined(missing) +
                           ". Each `tool_use` block must have a corresponding `tool_result` block in the next message.");
      }
    }
  }
  return core::Status::Ok();
}

core::Status ParseTools(const json& body, Conversation& conversation) {
  auto tools = body.find("tools");
  if (tools == body.end()) return core::Status::Ok();
  if (!tools->is_array()) return Invalid("tools", "must be an array of {name, description, input_schema}");
  std::set<std::string> names;
  for (size_t i = 0; i < tools->size(); ++i) {
    const json& tool = (*tools)[i];
    std::string at = "tools." + std::to_string(i);
    if (!tool.is_object()) return Invalid(at, "a tool must be an object {name, description, input_schema}");
    auto type = tool.find("type");
    if (type != tool.end() && *type != "custom") {
      return Invalid(at + ".type", "only custom tools (no type, or \"custom\") are served by the mock model");
    }
    auto name = tool.find("name");
    if (name == tool.end() || !name->is_string()) return Invalid(at + ".name", "Field required (a string)");
    if (!IsToolName(name->get_ref<const std::string&>())) {
      return Invalid(at + ".name", "String should match pattern '^[a-zA-Z0-9_-]{1,64}$'");
    }
    auto description = tool.find("description");
    if (description != tool.end() && !description->is_string()) return Invalid(at + ".description", "must be a string");
    auto schema = tool.find("input_schema");
    if (schema == tool.end() || !schema->is_object()) return Invalid(at + ".input_schema", "Field required (an object)");
    auto schema_type = schema->find("type");
    if (schema_type == schema->end() || *schema_type != "object") {
      return Invalid(at + ".input_schema.type", "Input should be 'object'");
    }
    if (!names.insert(name->get<std::string>()).second) return Invalid("tools", "Tool names must be unique.");
    conversation.tools.push_back(name->get<std::string>());
  }
  return core::Status::Ok();
}

}  // namespace

std::optional<ApiError> CheckAnthropicHeaders(const std::optional<std::string>& x_api_key,
                                              const std::optional<std::string>& anthropic_version,
                                              const std::optional<std::string>& expected_key) {
  if (!x_api_key || x_api_key->empty()) {
    return ApiError{ErrorKind::kAuthentication, "x-api-key header is required"};
  }
  if (expected_key && *x_api_key != *expected_key) {
    return ApiError{ErrorKind::kAuthentication, "invalid x-api-key"};
  }
  if (!anthropic_version || anthropic_version->empty()) {
    return ApiError{ErrorKind::kInvalidRequest, "anthropic-version: header is required (e.g. 2023-06-01)"};
  }
  return std::nullopt;
}

core::Result<Conversation> ParseAnthropicRequest(std::string_view text) {
  auto parsed = core::ParseJsonBounded(text, "the body", {kMaxBodyBytes});
  if (!parsed.ok()) return parsed.error();
  const json& body = *parsed;
  if (!body.is_object()) return core::Error{"the body must be a JSON object {model, max_tokens, messages}"};
  Conversation conversation;
  conversation.input_bytes = text.size();
  try {
    auto model = body.find("model");
    if (model == body.end() || !IsNonEmptyString(*model)) return Invalid("model", "Field required (a non-empty string)");
    conversation.model = model->get<std::string>();
    auto max_tokens = body.find("max_tokens");
    if (max_tokens == body.end()) return Invalid("max_tokens", "Field required");
    if (!max_tokens->is_number_integer() || max_tokens->get<long long>() < 1) {
      return Invalid("max_tokens", "must be an integer of at least 1");
    }
    auto stream = body.find("stream");
    if (stream != body.end() && !stream->is_boolean()) return Invalid("stream", "must be a boolean");
    if (stream != body.end() && stream->get<bool>()) {
      return Invalid("stream", "streaming is not supported by the mock model; send stream: false or leave it out");
    }
    auto system = body.find("system");
    if (system != body.end() && !system->is_string()) {
      if (!system->is_array()) return Invalid("system", "must be a string or an array of text blocks");
      CORE_RETURN_IF_ERROR(CheckTextBlocks(*system, "system", /*allow_images=*/false));
    }
    auto messages = body.find("messages");
    if (messages == body.end()) return Invalid("messages", "Field required");
    if (!messages->is_array() || messages->empty()) return Invalid("messages", "must be a non-empty array of messages");
    std::vector<MessageView> views;
    for (size_t i = 0; i < messages->size(); ++i) {
      auto view = ParseMessage((*messages)[i], "messages." + std::to_string(i));
      if (!view.ok()) return view.error();
      views.push_back(std::move(*view));
    }
    if (views.front().role != "user") return Invalid("messages.0.role", "the first message must use the \"user\" role");
    CORE_RETURN_IF_ERROR(CheckToolPairs(views));
    CORE_RETURN_IF_ERROR(ParseTools(body, conversation));
    bool first_user = true;
    for (const auto& view : views) {
      if (view.role == "assistant") ++conversation.assistant_turns;
      if (view.role == "user" && first_user) {
        conversation.first_user_text = view.text;
        first_user = false;
      }
      conversation.tool_results += view.tool_result_ids.size();
    }
  } catch (const nlohmann::json::exception&) {
    // Every access above is type-checked first; this is a backstop.
    return core::Error{"the body does not have the shape of a Messages API request"};
  }
  return conversation;
}

std::string RenderAnthropicAnswer(const Answer& answer, const Conversation& conversation,
                                  const std::string& message_id) {
  // Keys come out sorted (nlohmann::json): clients read JSON by name, and an
  // insertion-ordered object would cost quadratic time on huge arguments.
  json content = json::array();
  if (answer.tool_calls.empty()) {
    content.push_back({{"type", "text"}, {"text", answer.text}});
  } else {
    for (size_t i = 0; i < answer.tool_calls.size(); ++i) {
      const ToolCall& call = answer.tool_calls[i];
      content.push_back({{"type", "tool_use"},
                         {"id", ToolCallId("toolu_", conversation, i)},
                         {"name", call.name},
                         {"input", call.arguments}});
    }
  }
  Usage usage = EstimateUsage(conversation, answer);
  json out;
  out["id"] = message_id;
  out["type"] = "message";
  out["role"] = "assistant";
  out["model"] = conversation.model;
  out["content"] = std::move(content);
  out["stop_reason"] = answer.tool_calls.empty() ? "end_turn" : "tool_use";
  out["stop_sequence"] = nullptr;
  out["usage"] = {{"input_tokens", usage.input_tokens}, {"output_tokens", usage.output_tokens}};
  return core::DumpJson(out);
}

std::string RenderAnthropicError(const ApiError& error) {
  const char* type = "invalid_request_error";
  switch (error.kind) {
    case ErrorKind::kInvalidRequest: type = "invalid_request_error"; break;
    case ErrorKind::kAuthentication: type = "authentication_error"; break;
    case ErrorKind::kNotFound: type = "not_found_error"; break;
    case ErrorKind::kMethodNotAllowed: type = "invalid_request_error"; break;
    case ErrorKind::kTooLarge: type = "request_too_large"; break;
  }
  json out;
  out["type"] = "error";
  out["error"] = {{"type", type}, {"message", error.message}};
  return core::DumpJson(out);
}

}  // namespace volent::mockmodel
