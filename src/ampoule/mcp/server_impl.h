// The Server behind Server::Create, made from a list of tools; exposed so
// that tests and the fuzz target can build a server from tools of their
// own without a key or a kernel.
//
// Thread-safe: the tool list is fixed at construction.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "ampoule/mcp/server.h"
#include "ampoule/mcp/tool.h"

namespace ampoule::mcp {

inline constexpr std::string_view kServerName = "ampoule";
inline constexpr std::string_view kServerVersion = "0.1.0";

// JSON-RPC 2.0 error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

class ToolServer : public Server, public std::enable_shared_from_this<ToolServer> {
 public:
  explicit ToolServer(std::vector<Tool> tools) : tools_(std::move(tools)) {}
  std::unique_ptr<Session> NewSession() override;
  const std::vector<Tool>& tools() const { return tools_; }
  const Tool* Find(std::string_view name) const;

 private:
  std::vector<Tool> tools_;
};

std::shared_ptr<Server> NewServerWithTools(std::vector<Tool> tools);

// The JSON-RPC error response for request `id` (null when unknown).
nlohmann::json ErrorResponse(const nlohmann::json& id, int code, const std::string& message);

}  // namespace ampoule::mcp
