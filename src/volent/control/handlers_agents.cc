// /v1/agents: apply, list, get and delete agents (docs/control-api.md).
//
// Bodies with a manifest are built by splicing the stored JSON text in
// verbatim: the manifest is never parsed again to be served.
#include <charconv>
#include <variant>

#include "core/json.h"
#include "volent/control/api.h"
#include "volent/control/manifest_body.h"
#include "volent/store/agent_name.h"

namespace volent::control {
namespace {

constexpr size_t kDefaultLimit = 100;
constexpr size_t kMaxLimit = 1000;

// A summary as JSON text, written directly: every field is a name, a number,
// a fixed word or a timestamp, none of which needs escaping, and a page of
// 1,000 of them is built this way several times faster than through a tree.
// Keys in sorted order, as the stored manifests have them.
void AppendSummary(std::string& out, const store::AgentSummary& s) {
  out += "{\"applied_at\":\"";
  out += s.applied_at;
  out += "\",\"generation\":";
  out += std::to_string(s.generation);
  out += ",\"name\":\"";
  out += s.name;
  out += "\",\"status\":\"";
  out += store::AgentStatusName(s.status);
  out += '"';
}

// The agent: its summary plus "manifest", the stored JSON as it is.
std::string AgentBody(const store::AgentSummary& summary, const std::string& manifest_json) {
  std::string body;
  body.reserve(manifest_json.size() + 128);
  AppendSummary(body, summary);
  body += ",\"manifest\":";
  body += manifest_json;
  body += '}';
  return body;
}

Response AgentResponse(int status, const store::AgentSummary& summary, const std::string& manifest_json) {
  Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = AgentBody(summary, manifest_json);
  return r;
}

Problem BadName(const Request& request) {
  return MakeProblem(400,
                     "an agent name is 1 to 63 lowercase letters, digits and '-', starting and "
                     "ending with a letter or digit",
                     request.path);
}

Problem Internal(const Request& request) {
  return MakeProblem(500, "internal", "Internal error",
                     "the node could not write its data folder; see its log", request.path);
}

Response Apply(const ApiContext& ctx, const Request& request) {
  auto parsed = ParseManifestBody(request.content_type, request.body, ctx.config, request.path, ctx.check_agent);
  if (auto* problem = std::get_if<Problem>(&parsed)) return ProblemResponse(*problem);
  auto& agent = std::get<manifest::Agent>(parsed);
  std::string manifest_json = core::DumpJson(agent.document);
  auto outcome = ctx.store->Apply(agent.name, manifest_json);
  if (!outcome.ok()) {
    std::fprintf(stderr, "volent node: apply %s: %s\n", agent.name.c_str(), outcome.message().c_str());
    return ProblemResponse(Internal(request));
  }
  Response r = AgentResponse(outcome->created ? 201 : 200, outcome->summary, manifest_json);
  r.headers.emplace_back("Location", "/v1/agents/" + agent.name);
  return r;
}

Response List(const ApiContext& ctx, const Request& request) {
  size_t limit = kDefaultLimit;
  if (auto text = QueryParam(request.query, "limit")) {
    size_t value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size() || value < 1 || value > kMaxLimit) {
      return ProblemResponse(MakeProblem(400, "limit must be an integer from 1 to 1000", request.path));
    }
    limit = value;
  }
  std::string after = QueryParam(request.query, "after").value_or("");
  if (!after.empty() && !store::IsValidAgentName(after)) {
    return ProblemResponse(MakeProblem(400, "after must be an agent name (or empty, from the start)", request.path));
  }
  store::AgentPage page = ctx.store->List(after, limit);
  Response r;
  r.content_type = "application/json";
  r.body.reserve(32 + page.agents.size() * 96);
  r.body += "{\"agents\":[";
  for (size_t i = 0; i < page.agents.size(); ++i) {
    if (i > 0) r.body += ',';
    AppendSummary(r.body, page.agents[i]);
    r.body += '}';
  }
  r.body += "],\"next\":";
  r.body += page.next ? "\"" + *page.next + "\"" : std::string("null");
  r.body += '}';
  return r;
}

Response Get(const ApiContext& ctx, const Request& request, const PathParams& params) {
  const std::string& name = params.find("name")->second;
  if (!store::IsValidAgentName(name)) return ProblemResponse(BadName(request));
  auto record = ctx.store->Get(name);
  if (!record) return ProblemResponse(MakeProblem(404, "no agent named " + name, request.path));
  return AgentResponse(200, record->summary, record->manifest_json);
}

Response Delete(const ApiContext& ctx, const Request& request, const PathParams& params) {
  const std::string& name = params.find("name")->second;
  if (!store::IsValidAgentName(name)) return ProblemResponse(BadName(request));
  auto deleted = ctx.store->Delete(name);
  if (!deleted.ok()) {
    std::fprintf(stderr, "volent node: delete %s: %s\n", name.c_str(), deleted.message().c_str());
    return ProblemResponse(Internal(request));
  }
  if (!*deleted) return ProblemResponse(MakeProblem(404, "no agent named " + name, request.path));
  Response r;
  r.status = 204;
  return r;
}

nlohmann::json SummarySchema() {
  return {{"type", "object"},
          {"required", {"name", "generation", "status", "applied_at"}},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"generation", {{"type", "integer"}, {"minimum", 1}}},
            {"status", {{"enum", {"idle", "rejected"}}}},
            {"applied_at", {{"type", "string"}, {"format", "date-time"}}}}}};
}

nlohmann::json AgentSchema() {
  nlohmann::json s = SummarySchema();
  s["required"].push_back("manifest");
  s["properties"]["manifest"] = {{"$ref", "/v1/schemas/agent"}};
  return s;
}

ParameterDoc NameParam() {
  return {"name", "path", "The agent's name (metadata.name)",
          {{"type", "string"}, {"pattern", "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"}}, true};
}

}  // namespace

void AddAgentRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"POST", "/v1/agents", "applyAgent", "Apply a manifest: create the agent or replace it",
             {}, ManifestMediaTypes(), {{"$ref", "/v1/schemas/agent"}},
             {{201, "Created", "application/json", AgentSchema()},
              {200, "Replaced", "application/json", AgentSchema()}},
             [ctx](const Request& r, const PathParams&) { return Apply(*ctx, r); },
             access::Role::kOperator});
  table.Add({"GET", "/v1/agents", "listAgents", "List agents by name, a page at a time",
             {{"limit", "query", "Agents per page (1-1000, default 100)",
               {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 100}}, false},
              {"after", "query", "List agents whose name sorts after this one (the previous page's next)",
               {{"type", "string"}, {"pattern", "^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)?$"}}, false}},
             {}, {},
             {{200, "A page of agents", "application/json",
               {{"type", "object"},
                {"required", {"agents", "next"}},
                {"properties",
                 {{"agents", {{"type", "array"}, {"items", SummarySchema()}}},
                  {"next", {{"type", {"string", "null"}}}}}}}}},
             [ctx](const Request& r, const PathParams&) { return List(*ctx, r); },
             access::Role::kReader});
  table.Add({"GET", "/v1/agents/{name}", "getAgent", "An agent with its manifest", {NameParam()}, {}, {},
             {{200, "The agent", "application/json", AgentSchema()}},
             [ctx](const Request& r, const PathParams& p) { return Get(*ctx, r, p); },
             access::Role::kReader});
  table.Add({"DELETE", "/v1/agents/{name}", "deleteAgent", "Delete an agent", {NameParam()}, {}, {},
             {{204, "Deleted", "", nullptr}},
             [ctx](const Request& r, const PathParams& p) { return Delete(*ctx, r, p); },
             access::Role::kOperator});
}

}  // namespace volent::control
