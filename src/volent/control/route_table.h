// The control API's one route table: each row says how a request is matched
// (method, path template with {params}), how it is handled, and how it is
// documented (operationId, summary, parameters, request media types,
// responses). The dispatcher and the OpenAPI document (openapi.h) both read
// it, so the API and its description cannot drift apart.
//
// Dispatch authenticates first (auth.h: 401, 429), then matches, then
// checks the route's role against the principal (403), then the body.
// Dispatch turns every outcome into a Response: 404 (no path), 405 with
// Allow (path without that method), 413 (body over kMaxBodyBytes), 415
// (a body route with another Content-Type), 500 (a handler failed; no
// detail leaks). Thread-safe once built: Dispatch may run on many threads.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/access/principal.h"
#include "volent/control/message.h"
#include "volent/control/metrics.h"

namespace volent::control {

using PathParams = std::map<std::string, std::string, std::less<>>;
using Handler = std::function<Response(const Request&, const PathParams&)>;

struct ParameterDoc {
  std::string name;
  std::string in;  // "path" or "query"
  std::string description;
  nlohmann::json schema;  // JSON Schema of the value
  bool required = false;
};

struct ResponseDoc {
  int status = 200;
  std::string description;
  std::string media_type;  // "" for no body
  nlohmann::json schema;   // JSON Schema of the body (may be a $ref)
};

struct Route {
  std::string method;  // "GET", "POST", "DELETE"
  std::string path;    // e.g. "/v1/agents/{name}"
  std::string operation_id;
  std::string summary;
  std::vector<ParameterDoc> parameters;
  std::vector<std::string> request_media_types;  // empty: the route takes no body
  nlohmann::json request_schema;                 // of the body, for each media type
  std::vector<ResponseDoc> responses;
  Handler handler;
  // The role a caller needs (principal.h); every row names one. A row that
  // does not (kUndeclared) needs admin.
  access::Role role = access::Role::kUndeclared;
};

class Authenticator;

class RouteTable {
 public:
  // `metrics` (may be null) receives one sample per dispatched request.
  // `auth` (may be null: every request is the development principal, for
  // in-process tests) decides who a request comes from.
  explicit RouteTable(Metrics* metrics = nullptr, Authenticator* auth = nullptr)
      : metrics_(metrics), auth_(auth) {}

  void Add(Route route);
  const std::vector<Route>& routes() const { return routes_; }

  // Answers `request`; never throws.
  Response Dispatch(Request request) const;

 private:
  Response Handle(Request& request, std::string& route_label) const;

  std::vector<Route> routes_;
  Metrics* metrics_;
  Authenticator* auth_;
};

// True if `media_type` (a Content-Type value, parameters ignored, any case)
// is one of `accepted`.
bool MediaTypeIn(std::string_view media_type, const std::vector<std::string>& accepted);

}  // namespace volent::control
