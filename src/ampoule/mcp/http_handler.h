// The rules of the MCP endpoint (http.h), from a parsed HTTP request to the
// HTTP response, apart from sockets and threads, so they can be tested and
// fuzzed directly.
//
// A request goes through Route, which either answers it at once (every
// error, DELETE, GET, OPTIONS) or yields a Dispatch: a JSON-RPC message for
// one session. The server runs RunDispatch on a worker thread (tool calls
// are slow), then Complete turns the session's answer into the response.
// HandleNow does all three in line.
//
// Responses never carry internals: errors are JSON-RPC error objects with
// id null and a message saying what the client must change.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "ampoule/mcp/http_session_table.h"
#include "ampoule/mcp/server.h"

namespace ampoule::mcp {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

inline constexpr const char* kMcpPath = "/mcp";

struct HttpHandlerConfig {
  int port = 0;               // the bound port: loopback origins and Host names carry it
  bool loopback_only = true;  // bound to a loopback address: Host must name loopback
  std::vector<std::string> allowed_origins;
};

// One JSON-RPC message on its way to a session.
struct HttpDispatch {
  std::shared_ptr<HttpSession> session;
  bool new_session = false;  // initialize: the session joins the table if it succeeds
  nlohmann::json message;
  bool is_request = false;   // has an id: a response is owed
  bool stream = false;       // answer as text/event-stream (tools/call)
  std::string cors_origin;   // an allowed Origin to echo, or empty
  unsigned version = 11;     // HTTP version of the request
  bool keep_alive = true;
};

struct HttpRouted {
  std::optional<HttpResponse> response;  // answered at once
  std::optional<HttpDispatch> dispatch;  // or: run this on a worker
};

HttpRouted Route(const HttpRequest& request, Server& server, HttpSessionTable& sessions,
                 const HttpHandlerConfig& config);

// Session::Handle, with anything it throws turned into an internal error
// (-32603) that says nothing about the cause.
std::optional<nlohmann::json> RunDispatch(const HttpDispatch& dispatch);

// The full response for a dispatch (for a stream: its headers, and the one
// event as the body). Registers a new session; releases the session's
// in-flight mark. Call exactly once per dispatch.
HttpResponse Complete(HttpDispatch& dispatch, const std::optional<nlohmann::json>& reply,
                      HttpSessionTable& sessions);

// For a stream, sent before the call runs: the status line and headers
// (Transfer-Encoding: chunked); then SseEvent(reply) as one chunk.
boost::beast::http::response<boost::beast::http::empty_body> StreamHeader(
    const HttpDispatch& dispatch);
std::string SseEvent(const nlohmann::json& message);

HttpResponse HandleNow(const HttpRequest& request, Server& server, HttpSessionTable& sessions,
                       const HttpHandlerConfig& config);

// An error response with a JSON-RPC error body (id null); also used by the
// server for requests it cannot parse.
HttpResponse ErrorResponse(boost::beast::http::status status, int code, const std::string& message,
                           unsigned version, bool keep_alive);

}  // namespace ampoule::mcp
