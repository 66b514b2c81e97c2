// The Model Context Protocol server behind `ampoule mcp` (docs/mcp.md):
// the protocol itself, apart from any transport. A transport (stdio.h,
// http.h) reads messages, hands each to a Session and writes back what it
// returns.
//
// Protocol revision 2025-11-25 (older revisions the client asks for are
// accepted when listed in kProtocolVersions). JSON-RPC 2.0: a request gets
// exactly one response (a result, or an error object for protocol faults:
// parse error -32700, invalid request -32600, unknown method -32601,
// invalid params -32602, internal -32603); a notification or a response
// gets none. A tool that fails returns a result with isError: true, never
// a protocol error.
//
// Thread-safe: one Server is shared by every session and transport thread;
// a Session may be called from several threads at once (many tool calls in
// flight in one session); each tool call runs in its own sealed sandbox.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ampoule::mcp {

// Newest first; the first is what the server offers when the client asks
// for a revision it does not know.
inline const std::vector<std::string> kProtocolVersions = {"2025-11-25", "2025-06-18", "2025-03-26"};

// A message is parsed with ParseMessage (core/json.h's limits): one nested
// deeper than kMaxJsonDepth is refused before it is built (-32700). Every
// transport applies the same limit; each bounds the size itself (stdio
// max_line_bytes, HTTP max_body_bytes), before the text reaches a session.
core::Result<nlohmann::json> ParseMessage(std::string_view text);

struct ServerOptions {
  std::string kernel_path;      // empty: the installed kernel
  std::string key_path;         // the key receipts are signed with (required)
  std::vector<std::string> trusted_keys;  // public key files the verify tool trusts (default: key_path's public half)
  std::string gate_policy;      // the gate tool's policy; empty: the gate tool reports it is not configured
};

class Session;

class Server {
 public:
  // Loads the key and checks the kernel; errors say which option to fix.
  static core::Result<std::shared_ptr<Server>> Create(const ServerOptions& options);
  virtual ~Server() = default;
  virtual std::unique_ptr<Session> NewSession() = 0;
};

class Session {
 public:
  virtual ~Session() = default;
  // Handles one parsed JSON-RPC message. Returns the response for a
  // request; nullopt for a notification or a response.
  virtual std::optional<nlohmann::json> Handle(const nlohmann::json& message) = 0;
  // As Handle, from text: malformed JSON gets the -32700 response (id null).
  virtual std::optional<nlohmann::json> HandleText(std::string_view text) = 0;
  // The negotiated revision; empty until initialize succeeded.
  virtual std::string protocol_version() const = 0;
};

}  // namespace ampoule::mcp
