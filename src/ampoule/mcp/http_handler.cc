#include "ampoule/mcp/http_handler.h"
#include "core/json.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <string_view>

namespace ampoule::mcp {

namespace http = boost::beast::http;
using nlohmann::json;

namespace {

constexpr const char* kSessionHeader = "Mcp-Session-Id";
constexpr const char* kVersionHeader = "MCP-Protocol-Version";

// JSON-RPC error codes used by the transport (server.h lists the protocol's).
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kInternalError = -32603;
constexpr int kTransportError = -32000;  // implementation-defined server error
constexpr int kSessionNotFound = -32001;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The media types of every Accept header, lowercased, parameters dropped.
std::vector<std::string> AcceptedTypes(const HttpRequest& req) {
  std::vector<std::string> types;
  auto range = req.equal_range(http::field::accept);
  for (auto it = range.first; it != range.second; ++it) {
    std::string_view value(it->value().data(), it->value().size());
    while (!value.empty()) {
      size_t comma = value.find(',');
      std::string_view item = value.substr(0, comma);
      item = Trim(item.substr(0, item.find(';')));
      if (!item.empty()) types.push_back(Lower(item));
      if (comma == std::string_view::npos) break;
      value.remove_prefix(comma + 1);
    }
  }
  return types;
}

bool AcceptsBoth(const HttpRequest& req) {
  auto types = AcceptedTypes(req);
  auto has = [&](const char* t) { return std::find(types.begin(), types.end(), t) != types.end(); };
  return has("application/json") && has("text/event-stream");
}

bool IsJsonContentType(const HttpRequest& req) {
  auto it = req.find(http::field::content_type);
  if (it == req.end()) return false;
  std::string_view value(it->value().data(), it->value().size());
  return Lower(Trim(value.substr(0, value.find(';')))) == "application/json";
}

// Host names a loopback address (the only names a loopback server answers
// to; anything else is a DNS rebinding attempt). The port, when given, must
// be the bound one.
bool IsLoopbackHost(std::string_view host, int port) {
  host = Trim(host);
  std::string_view name = host;
  std::string_view port_text;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    name = host.substr(0, close + 1);
    std::string_view rest = host.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port_text = rest.substr(1);
    }
  } else if (size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    name = host.substr(0, colon);
    port_text = host.substr(colon + 1);
  }
  std::string lname = Lower(name);
  if (lname != "localhost" && lname != "127.0.0.1" && lname != "[::1]") return false;
  if (host.size() != name.size()) {  // a port was written
    if (port_text.empty() || port_text.size() > 5) return false;
    if (!std::all_of(port_text.begin(), port_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    if (std::stoi(std::string(port_text)) != port) return false;
  }
  return true;
}

bool IsAllowedOrigin(std::string_view origin, const HttpHandlerConfig& config) {
  std::string o = Lower(Trim(origin));
  std::string port = std::to_string(config.port);
  for (const char* host : {"127.0.0.1", "localhost", "[::1]"}) {
    if (o == std::string("http://") + host + ":" + port) return true;
  }
  for (const std::string& allowed : config.allowed_origins) {
    if (o == Lower(allowed)) return true;
  }
  return false;
}

json ErrorBody(int code, const std::string& message) {
  return json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", code}, {"message", message}}}};
}

void AddCors(http::fields& fields, const std::string& origin) {
  if (origin.empty()) return;
  fields.set(http::field::access_control_allow_origin, origin);
  fields.set(http::field::access_control_expose_headers, "Mcp-Session-Id");
  fields.set(http::field::vary, "Origin");
}

HttpResponse JsonResponse(http::status status, const json& body, unsigned version, bool keep_alive,
                          const std::string& cors_origin) {
  HttpResponse res{status, version};
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  AddCors(res.base(), cors_origin);
  res.keep_alive(keep_alive);
  res.body() = core::DumpJson(body);
  res.prepare_payload();
  return res;
}

HttpResponse EmptyResponse(http::status status, unsigned version, bool keep_alive,
                           const std::string& cors_origin) {
  HttpResponse res{status, version};
  AddCors(res.base(), cors_origin);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

// What kind of JSON-RPC message a body is, without judging its contents
// (the session does that).
enum class Kind { kRequest, kNotification, kResponse, kInvalid };

Kind Classify(const json& message) {
  if (!message.is_object()) return Kind::kInvalid;
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") return Kind::kInvalid;
  auto method = message.find("method");
  if (method != message.end()) {
    if (!method->is_string()) return Kind::kInvalid;
    return message.contains("id") ? Kind::kRequest : Kind::kNotification;
  }
  if (message.contains("id") && (message.contains("result") || message.contains("error")))
    return Kind::kResponse;
  return Kind::kInvalid;
}

}  // namespace

HttpResponse ErrorResponse(http::status status, int code, const std::string& message, unsigned version,
                           bool keep_alive) {
  return JsonResponse(status, ErrorBody(code, message), version, keep_alive, "");
}

HttpRouted Route(const HttpRequest& req, Server& server, HttpSessionTable& sessions,
                 const HttpHandlerConfig& config) {
  const unsigned version = req.version();
  const bool keep_alive = req.keep_alive();
  auto answer = [&](HttpResponse res) {
    HttpRouted routed;
    routed.response = std::move(res);
    return routed;
  };
  auto error = [&](http::status status, int code, const std::string& message,
                   const std::string& cors = "") {
    return answer(JsonResponse(status, ErrorBody(code, message), version, keep_alive, cors));
  };

  std::string_view target(req.target().data(), req.target().size());
  std::string_view path = target.substr(0, target.find('?'));
  if (path != kMcpPath) {
    return error(http::status::not_found, kTransportError, "not found: the MCP endpoint is /mcp");
  }

  if (config.loopback_only) {
    auto host = req.equal_range(http::field::host);
    bool ok = host.first != host.second && std::next(host.first) == host.second &&
              IsLoopbackHost({host.first->value().data(), host.first->value().size()}, config.port);
    if (!ok) {
      return error(http::status::forbidden, kTransportError,
                   "forbidden: this server answers only to localhost, 127.0.0.1 or [::1] "
                   "as the Host");
    }
  }

  std::string cors_origin;
  {
    auto origins = req.equal_range(http::field::origin);
    for (auto it = origins.first; it != origins.second; ++it) {
      std::string_view origin(it->value().data(), it->value().size());
      if (!IsAllowedOrigin(origin, config)) {
        return error(http::status::forbidden, kTransportError,
                     "forbidden: this Origin is not allowed (start the server with "
                     "--allow-origin ORIGIN to allow it)");
      }
      cors_origin = std::string(Trim(origin));
    }
  }

  const http::verb method = req.method();
  if (method == http::verb::options) {
    HttpResponse res = EmptyResponse(http::status::no_content, version, keep_alive, cors_origin);
    res.set(http::field::allow, "POST, DELETE, OPTIONS");
    if (!cors_origin.empty()) {
      res.set(http::field::access_control_allow_methods, "POST, DELETE, OPTIONS");
      res.set(http::field::access_control_allow_headers,
              "Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID");
      res.set(http::field::access_control_max_age, "600");
    }
    return answer(std::move(res));
  }
  if (method != http::verb::post && method != http::verb::delete_) {
    auto routed = error(http::status::method_not_allowed, kTransportError,
                        "method not allowed: send messages with POST; this server offers no "
                        "stream to GET",
                        cors_origin);
    routed.response->set(http::field::allow, "POST, DELETE, OPTIONS");
    return routed;
  }

  if (auto it = req.find(kVersionHeader); it != req.end()) {
    std::string_view value = Trim({it->value().data(), it->value().size()});
    if (std::find(kProtocolVersions.begin(), kProtocolVersions.end(), value) == kProtocolVersions.end()) {
      std::string list;
      for (const auto& v : kProtocolVersions) list += (list.empty() ? "" : ", ") + v;
      return error(http::status::bad_request, kTransportError,
                   "unsupported MCP-Protocol-Version; this server supports " + list, cors_origin);
    }
  }

  // The session the request names, if any.
  std::optional<std::string> session_id;
  {
    auto ids = req.equal_range(kSessionHeader);
    if (ids.first != ids.second) {
      if (std::next(ids.first) != ids.second) {
        return error(http::status::bad_request, kTransportError,
                     "send one Mcp-Session-Id header, not several", cors_origin);
      }
      session_id = std::string(Trim({ids.first->value().data(), ids.first->value().size()}));
      if (session_id->empty()) session_id.reset();
    }
  }

  if (method == http::verb::delete_) {
    if (!session_id) {
      return error(http::status::bad_request, kTransportError,
                   "DELETE needs the Mcp-Session-Id header of the session to end", cors_origin);
    }
    if (!sessions.Remove(*session_id)) {
      return error(http::status::not_found, kSessionNotFound,
                   "session not found: it ended or never existed; send initialize again",
                   cors_origin);
    }
    return answer(EmptyResponse(http::status::no_content, version, keep_alive, cors_origin));
  }

  // POST: one JSON-RPC message.
  if (!AcceptsBoth(req)) {
    return error(http::status::not_acceptable, kTransportError,
                 "not acceptable: the Accept header must list both application/json and "
                 "text/event-stream",
                 cors_origin);
  }
  if (!IsJsonContentType(req)) {
    return error(http::status::unsupported_media_type, kTransportError,
                 "unsupported media type: send the message as Content-Type: application/json",
                 cors_origin);
  }
  core::Result<json> parsed = ParseMessage(req.body());
  if (!parsed) return error(http::status::bad_request, kParseError, "parse error: " + parsed.message(), cors_origin);
  json& message = *parsed;
  if (message.is_array()) {
    return error(http::status::bad_request, kInvalidRequest,
                 "invalid request: send one JSON-RPC message per POST; batches are not supported",
                 cors_origin);
  }
  Kind kind = Classify(message);
  if (kind == Kind::kInvalid) {
    return error(http::status::bad_request, kInvalidRequest,
                 "invalid request: the body must be one JSON-RPC 2.0 request, notification or "
                 "response",
                 cors_origin);
  }

  HttpDispatch dispatch;
  dispatch.is_request = kind == Kind::kRequest;
  dispatch.cors_origin = cors_origin;
  dispatch.version = version;
  dispatch.keep_alive = keep_alive;
  const std::string method_name = kind == Kind::kResponse ? "" : message["method"].get<std::string>();
  if (!session_id) {
    if (!(kind == Kind::kRequest && method_name == "initialize")) {
      return error(http::status::bad_request, kTransportError,
                   "bad request: the Mcp-Session-Id header is missing; send initialize first and "
                   "then its session id with every request",
                   cors_origin);
    }
    auto fresh = std::make_shared<HttpSession>();
    fresh->session = server.NewSession();
    if (!fresh->session) {
      return error(http::status::service_unavailable, kTransportError,
                   "the server cannot open a session now; try again later", cors_origin);
    }
    dispatch.session = std::move(fresh);
    dispatch.new_session = true;
  } else {
    dispatch.session = sessions.Acquire(*session_id);
    if (!dispatch.session) {
      return error(http::status::not_found, kSessionNotFound,
                   "session not found: it ended or never existed; send initialize again",
                   cors_origin);
    }
  }
  dispatch.stream = kind == Kind::kRequest && method_name == "tools/call";
  dispatch.message = std::move(message);
  HttpRouted routed;
  routed.dispatch = std::move(dispatch);
  return routed;
}

std::optional<json> RunDispatch(const HttpDispatch& dispatch) {
  try {
    return dispatch.session->session->Handle(dispatch.message);
  } catch (...) {
    if (!dispatch.is_request) return std::nullopt;
    json reply = ErrorBody(kInternalError, "internal error");
    auto id = dispatch.message.find("id");
    if (id != dispatch.message.end()) reply["id"] = *id;
    return reply;
  }
}

namespace {
void SetStreamFields(http::fields& fields, const HttpDispatch& dispatch) {
  fields.set(http::field::content_type, "text/event-stream");
  fields.set(http::field::cache_control, "no-cache");
  AddCors(fields, dispatch.cors_origin);
}
}  // namespace

http::response<http::empty_body> StreamHeader(const HttpDispatch& dispatch) {
  http::response<http::empty_body> res{http::status::ok, dispatch.version};
  SetStreamFields(res.base(), dispatch);
  res.keep_alive(dispatch.keep_alive);
  res.chunked(true);
  return res;
}

std::string SseEvent(const json& message) {
  // dump() escapes line breaks inside strings, so the message is one line
  // and one data field suffices.
  return "event: message\ndata: " + core::DumpJson(message) +
         "\n\n";
}

HttpResponse Complete(HttpDispatch& dispatch, const std::optional<json>& reply,
                      HttpSessionTable& sessions) {
  const std::string& cors = dispatch.cors_origin;
  std::string new_id;
  if (dispatch.new_session) {
    // Only a successful initialize opens a session; a failed one leaves
    // nothing behind for the client to name.
    if (reply && reply->is_object() && reply->contains("result")) {
      if (!sessions.Add(dispatch.session)) {
        return JsonResponse(http::status::service_unavailable,
                            ErrorBody(kTransportError,
                                      "too many sessions are busy; try again later"),
                            dispatch.version, dispatch.keep_alive, cors);
      }
      new_id = dispatch.session->id;
    }
  } else {
    sessions.Release(dispatch.session->id);
  }

  HttpResponse res;
  if (dispatch.stream) {
    res = HttpResponse{http::status::ok, dispatch.version};
    SetStreamFields(res.base(), dispatch);
    res.keep_alive(dispatch.keep_alive);
    if (reply) {
      res.body() = SseEvent(*reply);
    } else {
      json missing = ErrorBody(kInternalError, "internal error: the request got no response");
      missing["id"] = dispatch.message.value("id", json());
      res.body() = SseEvent(missing);
    }
    res.prepare_payload();
  } else if (!reply) {
    if (dispatch.is_request) {
      // A request the session chose not to answer: say so instead of
      // leaving the client waiting for a response that never comes.
      res = JsonResponse(http::status::internal_server_error,
                         ErrorBody(kInternalError, "internal error: the request got no response"),
                         dispatch.version, dispatch.keep_alive, cors);
    } else {
      res = EmptyResponse(http::status::accepted, dispatch.version, dispatch.keep_alive, cors);
    }
  } else if (!dispatch.is_request) {
    // The session answered a notification or response (it should not);
    // the transport owes the client only the acknowledgement.
    res = EmptyResponse(http::status::accepted, dispatch.version, dispatch.keep_alive, cors);
  } else {
    res = JsonResponse(http::status::ok, *reply, dispatch.version, dispatch.keep_alive, cors);
  }
  if (!new_id.empty()) res.set(kSessionHeader, new_id);
  return res;
}

HttpResponse HandleNow(const HttpRequest& request, Server& server, HttpSessionTable& sessions,
                       const HttpHandlerConfig& config) {
  HttpRouted routed = Route(request, server, sessions, config);
  if (routed.response) return std::move(*routed.response);
  auto reply = RunDispatch(*routed.dispatch);
  return Complete(*routed.dispatch, reply, sessions);
}

}  // namespace ampoule::mcp
