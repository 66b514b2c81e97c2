// One MCP session: the JSON-RPC 2.0 envelope and the lifecycle
// (initialize, then tools/list and tools/call; ping at any time), as the
// 2025-11-25 revision specifies them.
//
//  - A request before initialize (other than ping) is refused (-32600), as
//    is a second initialize.
//  - A batch (a JSON array) is refused (-32600): JSON-RPC batching was
//    removed from MCP in 2025-06-18.
//  - tools/call with an unknown tool name is a protocol error (-32602);
//    arguments that do not satisfy the tool's inputSchema are a tool
//    execution error (isError: true) so the model can correct them
//    (2025-11-25, SEP-1303).
#include <limits>
#include <mutex>

#include "ampoule/mcp/json_schema.h"
#include "ampoule/mcp/server_impl.h"
#include "core/json.h"

namespace ampoule::mcp {

core::Result<nlohmann::json> ParseMessage(std::string_view text) {
  return core::ParseJsonBounded(text, "the message", {std::numeric_limits<size_t>::max()});
}

namespace {

using nlohmann::json;

bool ValidId(const json& id) { return id.is_string() || id.is_number_integer(); }

class SessionImpl : public Session {
 public:
  explicit SessionImpl(std::shared_ptr<const ToolServer> server) : server_(std::move(server)) {}

  std::optional<json> HandleText(std::string_view text) override {
    core::Result<json> message = ParseMessage(text);
    if (!message) return ErrorResponse(nullptr, kParseError, "Parse error: " + message.message());
    return Handle(*message);
  }

  std::optional<json> Handle(const json& message) override {
    if (message.is_array()) {
      return ErrorResponse(nullptr, kInvalidRequest,
                           "Invalid Request: batches (JSON arrays) are not supported since MCP 2025-06-18; "
                           "send one message at a time");
    }
    if (!message.is_object()) {
      return ErrorResponse(nullptr, kInvalidRequest, "Invalid Request: a message must be a JSON object");
    }
    auto id_it = message.find("id");
    bool has_id = id_it != message.end();
    if (has_id && !ValidId(*id_it)) {
      return ErrorResponse(nullptr, kInvalidRequest,
                           "Invalid Request: id must be a string or an integer (not null)");
    }
    json id = has_id ? *id_it : json(nullptr);
    auto version = message.find("jsonrpc");
    if (version == message.end() || *version != "2.0") {
      return ErrorResponse(id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
    }
    auto method_it = message.find("method");
    if (method_it == message.end()) {
      // A response to a request of ours (we send none): nothing to answer.
      if (has_id && (message.contains("result") || message.contains("error"))) return std::nullopt;
      return ErrorResponse(id, kInvalidRequest, "Invalid Request: no method");
    }
    if (!method_it->is_string()) {
      return ErrorResponse(id, kInvalidRequest, "Invalid Request: method must be a string");
    }
    const std::string& method = method_it->get_ref<const std::string&>();
    json params = json::object();
    if (auto p = message.find("params"); p != message.end()) {
      if (!p->is_object() && !p->is_array()) {
        return ErrorResponse(id, kInvalidRequest, "Invalid Request: params must be an object");
      }
      if (p->is_array()) {
        if (!has_id) return std::nullopt;
        return ErrorResponse(id, kInvalidParams, "Invalid params: MCP params are an object, not an array");
      }
      params = *p;
    }
    if (!has_id) {
      HandleNotification(method);
      return std::nullopt;
    }
    try {
      return Dispatch(id, method, params);
    } catch (const std::exception& e) {
      // A bug, not the client's fault; the session goes on.
      return ErrorResponse(id, kInternalError, std::string("Internal error: ") + e.what());
    }
  }

  std::string protocol_version() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return protocol_version_;
  }

 private:
  void HandleNotification(const std::string& method) {
    // notifications/initialized needs no action (we send no requests);
    // notifications/cancelled cannot stop a sealed run midway, and its
    // response is still sent (the client ignores it). Unknown
    // notifications are ignored, as JSON-RPC requires.
    (void)method;
  }

  json Result(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

  json Dispatch(const json& id, const std::string& method, const json& params) {
    if (method == "ping") return Result(id, json::object());
    if (method == "initialize") return Initialize(id, params);
    if (protocol_version().empty()) {
      return ErrorResponse(id, kInvalidRequest,
                           "Invalid Request: the session is not initialized; send initialize first");
    }
    if (method == "tools/list") return ListTools(id, params);
    if (method == "tools/call") return CallTool(id, params);
    return ErrorResponse(id, kMethodNotFound, "Method not found: " + method);
  }

  json Initialize(const json& id, const json& params) {
    auto requested = params.find("protocolVersion");
    if (requested == params.end() || !requested->is_string()) {
      return ErrorResponse(id, kInvalidParams, "Invalid params: initialize needs protocolVersion (a string)");
    }
    for (const char* field : {"capabilities", "clientInfo"}) {
      if (auto f = params.find(field); f != params.end() && !f->is_object()) {
        return ErrorResponse(id, kInvalidParams, std::string("Invalid params: ") + field + " must be an object");
      }
    }
    // Offer the client's revision when we speak it, else our newest; the
    // client decides whether it can go on.
    std::string chosen = kProtocolVersions.front();
    for (const std::string& v : kProtocolVersions) {
      if (*requested == v) chosen = v;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!protocol_version_.empty()) {
        return ErrorResponse(id, kInvalidRequest, "Invalid Request: the session is already initialized");
      }
      protocol_version_ = chosen;
    }
    return Result(id, {{"protocolVersion", chosen},
                       {"capabilities", {{"tools", {{"listChanged", false}}}}},
                       {"serverInfo", {{"name", kServerName}, {"title", "Ampoule"}, {"version", kServerVersion}}},
                       {"instructions",
                        "Runs Python, JavaScript and WASI programs sealed on a deterministic kernel. Every "
                        "run returns its output with a signed receipt that can be verified and replayed "
                        "(verify_receipt); gate_submit checks an action against a receipt before it is "
                        "sent."}});
  }

  json ListTools(const json& id, const json& params) {
    if (auto c = params.find("cursor"); c != params.end()) {
      // We never hand out a cursor: the whole list comes in one page.
      return ErrorResponse(id, kInvalidParams, "Invalid params: unknown cursor (tools/list has one page)");
    }
    json tools = json::array();
    for (const Tool& tool : server_->tools()) tools.push_back(ToolToJson(tool));
    return Result(id, {{"tools", tools}});
  }

  json CallTool(const json& id, const json& params) {
    auto name = params.find("name");
    if (name == params.end() || !name->is_string()) {
      return ErrorResponse(id, kInvalidParams, "Invalid params: tools/call needs name (a string)");
    }
    json arguments = json::object();
    if (auto a = params.find("arguments"); a != params.end()) {
      if (!a->is_object()) return ErrorResponse(id, kInvalidParams, "Invalid params: arguments must be an object");
      arguments = *a;
    }
    const Tool* tool = server_->Find(name->get_ref<const std::string&>());
    if (tool == nullptr) {
      return ErrorResponse(id, kInvalidParams, "Unknown tool: " + name->get<std::string>());
    }
    if (core::Status valid = CheckAgainstSchema(tool->input_schema, arguments); !valid.ok()) {
      return Result(id, ToolResultToJson(ToolResult::Fail("invalid arguments for " + tool->name + ": " +
                                                          valid.message())));
    }
    ToolResult result;
    try {
      result = tool->call(arguments);
    } catch (const std::exception& e) {
      result = ToolResult::Fail(tool->name + " failed: " + e.what());
    }
    return Result(id, ToolResultToJson(result));
  }

  std::shared_ptr<const ToolServer> server_;
  mutable std::mutex mu_;
  std::string protocol_version_;
};

}  // namespace

json ErrorResponse(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

const Tool* ToolServer::Find(std::string_view name) const {
  for (const Tool& t : tools_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::unique_ptr<Session> ToolServer::NewSession() {
  return std::make_unique<SessionImpl>(shared_from_this());
}

std::shared_ptr<Server> NewServerWithTools(std::vector<Tool> tools) {
  return std::make_shared<ToolServer>(std::move(tools));
}

}  // namespace ampoule::mcp
