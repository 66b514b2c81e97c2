#include "volent/control/openapi.h"

namespace volent::control {
namespace {

nlohmann::json ProblemSchema() {
  return {
      {"type", "object"},
      {"required", {"type", "title", "status"}},
      {"properties",
       {{"type", {{"type", "string"}}},
        {"title", {{"type", "string"}}},
        {"status", {{"type", "integer"}}},
        {"detail", {{"type", "string"}}},
        {"instance", {{"type", "string"}}},
        {"errors",
         {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties",
             {{"pointer", {{"type", "string"}}},
              {"line", {{"type", "integer"}}},
              {"column", {{"type", "integer"}}},
              {"detail", {{"type", "string"}}}}}}}}}}},
  };
}

nlohmann::json Operation(const Route& route) {
  nlohmann::json op = {{"operationId", route.operation_id}, {"summary", route.summary}};
  if (!route.parameters.empty()) {
    auto& params = op["parameters"] = nlohmann::json::array();
    for (const auto& p : route.parameters) {
      params.push_back({{"name", p.name},
                        {"in", p.in},
                        {"description", p.description},
                        {"required", p.required},
                        {"schema", p.schema}});
    }
  }
  if (!route.request_media_types.empty()) {
    nlohmann::json content = nlohmann::json::object();
    for (const auto& type : route.request_media_types) content[type] = {{"schema", route.request_schema}};
    op["requestBody"] = {{"required", true}, {"content", content}};
  }
  auto& responses = op["responses"] = nlohmann::json::object();
  for (const auto& r : route.responses) {
    nlohmann::json entry = {{"description", r.description}};
    if (!r.media_type.empty()) entry["content"] = {{r.media_type, {{"schema", r.schema}}}};
    responses[std::to_string(r.status)] = std::move(entry);
  }
  // Who may call it: a bearer token or a client certificate, holding the
  // role the route names (principal.h).
  op["security"] = nlohmann::json::array({{{"bearerAuth", nlohmann::json::array()}},
                                          {{"mutualTLS", nlohmann::json::array()}}});
  op["x-volent-role"] = std::string(access::RoleName(route.role));
  nlohmann::json problem = {{std::string(kProblemContentType), {{"schema", {{"$ref", "#/components/schemas/Problem"}}}}}};
  responses["401"] = {{"description", "No credential, or a bad one (malformed, unknown, expired, revoked); "
                                      "WWW-Authenticate says what to send"},
                      {"content", problem}};
  responses["403"] = {{"description", "The credential's roles do not include " + std::string(access::RoleName(route.role))},
                      {"content", problem}};
  responses["default"] = {
      {"description", "An error, as problem details (RFC 9457)"},
      {"content", {{std::string(kProblemContentType), {{"schema", {{"$ref", "#/components/schemas/Problem"}}}}}}}};
  return op;
}

std::string Lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

}  // namespace

nlohmann::json BuildOpenApi(const RouteTable& table, const std::string& version) {
  nlohmann::json doc = {
      {"openapi", "3.1.0"},
      {"info",
       {{"title", "Volent node control API"},
        {"version", version},
        {"description", "Apply and inspect the agents of a Volent node. Errors are problem "
                        "details (RFC 9457), application/problem+json."}}},
      {"paths", nlohmann::json::object()},
      {"components",
       {{"schemas", {{"Problem", ProblemSchema()}}},
        {"securitySchemes",
         {{"bearerAuth",
           {{"type", "http"},
            {"scheme", "bearer"},
            {"bearerFormat", "vlt_<id>_<secret>"},
            {"description", "A token an admin made (POST /v1/credentials); accepted when the node's control.auth "
                            "names tokens"}}},
          {"mutualTLS",
           {{"type", "mutualTLS"},
            {"description", "A client certificate signed by the node's client CA, whose subject's OU values name its "
                            "roles; accepted when control.auth names mtls"}}}}}}},
  };
  doc["security"] = nlohmann::json::array({{{"bearerAuth", nlohmann::json::array()}},
                                           {{"mutualTLS", nlohmann::json::array()}}});
  for (const Route& route : table.routes()) {
    doc["paths"][route.path][Lower(route.method)] = Operation(route);
  }
  return doc;
}

}  // namespace volent::control
