// The control API's requests and answers, independent of HTTP transport:
// handlers, tests and the fuzz target use these without sockets; the server
// (http_server.h) converts to and from the wire.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/access/principal.h"
#include "volent/control/problem.h"

namespace volent::control {

// Named limits of a request (docs/control-api.md).
inline constexpr size_t kMaxBodyBytes = 1024 * 1024;
inline constexpr size_t kMaxHeaderBytes = 16 * 1024;

// A client certificate the TLS handshake verified against the client CA.
struct ClientCertificate {
  bool present = false;
  std::string subject;                      // RFC 2253, e.g. "CN=alice,OU=approver"
  std::string sha256;                       // lowercase hex SHA-256 of its DER
  std::vector<std::string> units;           // its subject's OU values (the roles it names)
  int64_t not_before = 0;                   // its validity, Unix seconds
  int64_t not_after = 0;

  // Why it does not hold at `now_ms` (expired, not yet valid), or nothing.
  // Checked on every request: a resumed TLS session (1.2 or 1.3) carries the
  // certificate its first handshake verified, and OpenSSL checks its dates
  // only in a full handshake.
  std::optional<std::string> OutsideValidity(int64_t now_ms) const;
};

struct Request {
  std::string method;        // "GET", "POST", ... as sent
  std::string path;          // the target without its query, not decoded
  std::string query;         // after '?', "" when none
  std::string content_type;  // the Content-Type header, "" when none
  std::string authorization; // the Authorization header, "" when none
  std::string body;
  // From the transport: the client's address ("" in process) and its
  // verified certificate, if any.
  std::string peer;
  ClientCertificate certificate;
  // Set by the dispatcher once the request is authenticated; handlers read
  // it (who approved, who created a credential).
  access::Principal principal;
};

struct Response {
  int status = 200;
  std::string content_type;  // "" for no body
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones (Location, Allow)
};

// Splits "PATH?QUERY" into a request's path and query.
void SplitTarget(std::string_view target, Request& request);
// The value of `key` in a query string (percent-decoded), or nothing.
std::optional<std::string> QueryParam(std::string_view query, std::string_view key);

Response JsonResponse(int status, const nlohmann::json& body);
Response ProblemResponse(const Problem& problem);

}  // namespace volent::control
