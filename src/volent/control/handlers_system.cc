// /healthz, /metrics, /openapi.json and the published schemas.
#include <cmath>

#include "volent/control/api.h"

namespace volent::control {
namespace {

Response Text(std::string content_type, std::string body) {
  Response r;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

ResponseDoc Ok(std::string description, std::string media_type, nlohmann::json schema) {
  return {200, std::move(description), std::move(media_type), std::move(schema)};
}

}  // namespace

void AddSystemRoutes(const ControlApi& api, RouteTable& table) {
  const ControlApi* self = &api;
  table.Add({"GET", "/healthz", "getHealth", "The heartbeat: the node answers and how many agents it holds",
             {}, {}, {},
             {Ok("The node is up", "application/json",
                 {{"type", "object"},
                  {"required", {"status", "agents", "uptime_seconds", "auth"}},
                  {"properties",
                   {{"status", {{"const", "ok"}}},
                    {"auth",
                     {{"enum", {"tokens", "mtls", "tokens+mtls", "none (development)"}},
                      {"description", "How callers authenticate; \"none (development)\": not at all"}}},
                    {"agents", {{"type", "integer"}}},
                    {"uptime_seconds", {{"type", "integer"}}}}}})},
             [self](const Request&, const PathParams&) {
               size_t agents = self->context().store ? self->context().store->size() : 0;
               Authenticator* auth = self->context().auth;
               return JsonResponse(200, {{"status", "ok"},
                                         {"auth", auth ? auth->mode() : "none (development)"},
                                         {"agents", agents},
                                         {"uptime_seconds",
                                          static_cast<int64_t>(std::floor(self->uptime_seconds()))}});
             },
             access::Role::kReader});
  table.Add({"GET", "/metrics", "getMetrics", "Prometheus metrics (text format 0.0.4)", {}, {}, {},
             {Ok("The metrics", "text/plain; version=0.0.4", {{"type", "string"}})},
             [self](const Request&, const PathParams&) {
               const auto& ctx = self->context();
               size_t agents = ctx.store ? ctx.store->size() : 0;
               std::string body = ctx.metrics ? ctx.metrics->Render(agents) : Metrics().Render(agents);
               return Text("text/plain; version=0.0.4; charset=utf-8", std::move(body));
             },
             access::Role::kReader});
  table.Add({"GET", "/openapi.json", "getOpenApi", "This API's OpenAPI 3.1 document", {}, {}, {},
             {Ok("The document", "application/json", {{"type", "object"}})},
             [self](const Request&, const PathParams&) {
               return Text("application/json", self->openapi_json());
             },
             access::Role::kReader});
  table.Add({"GET", "/v1/schemas/agent", "getAgentSchema", "The JSON Schema of agent manifests", {},
             {}, {},
             {Ok("The schema (draft-07)", "application/schema+json", {{"type", "object"}})},
             [](const Request&, const PathParams&) {
               return Text("application/schema+json", std::string(manifest::AgentSchemaText()));
             },
             access::Role::kReader});
  table.Add({"GET", "/v1/schemas/node-config", "getNodeConfigSchema",
             "The JSON Schema of the node configuration (volent.yaml)", {}, {}, {},
             {Ok("The schema (draft-07)", "application/schema+json", {{"type", "object"}})},
             [](const Request&, const PathParams&) {
               return Text("application/schema+json", std::string(manifest::NodeConfigSchemaText()));
             },
             access::Role::kReader});
}

}  // namespace volent::control
