// GET /v1/egress/denials: the requests the egress gate refused, as the node
// journaled them (src/volent/agent/denial_journal.h), a page at a time, newest or
// oldest first, optionally of one agent or one capability
// (docs/control-api.md). Read-only: the API never writes the journal.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <type_traits>
#include <variant>

#include "core/rfc3339.h"
#include "volent/control/api.h"
#include "volent/control/json_api.h"
#include "volent/store/agent_name.h"

namespace volent::control {
namespace {

using nlohmann::json;

constexpr char kCapabilityPattern[] = "^[a-z0-9]([-._a-z0-9]{0,62}[a-z0-9])?$";

// kCapabilityPattern, checked by hand.
bool IsCapabilityName(std::string_view text) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (text.empty() || text.size() > 64 || !alnum(text.front()) || !alnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [&](char c) { return alnum(c) || c == '-' || c == '.' || c == '_'; });
}

// A member of the stored payload, or `fallback` when it is missing or of
// another type (a payload the node did not write).
template <class T>
T Member(const json& payload, const char* name, T fallback) {
  if (!payload.is_object()) return fallback;
  auto it = payload.find(name);
  if (it == payload.end()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->template get<std::string>() : fallback;
  } else {
    return it->is_number_integer() ? it->template get<T>() : fallback;
  }
}

json DenialJson(const journal::Entry& e) {
  const json payload = json::parse(e.payload, nullptr, false);
  return {{"seq", e.seq},
          {"time", core::Rfc3339Millis(e.time_ms)},
          {"agent", e.agent},
          {"run", e.run},
          {"step", e.step},
          {"key", e.key},
          {"capability", Member<std::string>(payload, "capability", "")},
          {"method", Member<std::string>(payload, "method", "")},
          {"url", Member<std::string>(payload, "url", "")},
          {"reason", Member<std::string>(payload, "reason", "")},
          {"hop", Member<int64_t>(payload, "hop", 0)},
          {"origin", Member<std::string>(payload, "origin", "")}};
}

Response BadQuery(const Request& request, std::string detail) {
  return ProblemResponse(MakeProblem(400, std::move(detail), request.path));
}

// The request's query as a journal query, or the 400 to answer.
std::variant<journal::KindQuery, Response> ReadQuery(const Request& request) {
  journal::KindQuery q;
  q.kind = journal::EntryKind::kEgressDenied;
  std::string order = QueryParam(request.query, "order").value_or("");
  if (order.empty()) order = "newest";
  if (order != "newest" && order != "oldest") {
    return BadQuery(request, "order must be newest (the default) or oldest");
  }
  q.newest_first = order == "newest";
  if (auto text = QueryParam(request.query, "after"); text && !text->empty()) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), q.after);
    if (ec != std::errc() || end != text->data() + text->size()) {
      return BadQuery(request, "after must be an entry number (the previous page's next)");
    }
  }
  auto limit = PageLimit(request.query);
  if (!limit) return ProblemResponse(BadLimit(request.path));
  q.limit = *limit;
  q.agent = QueryParam(request.query, "agent").value_or("");
  if (!q.agent.empty() && !store::IsValidAgentName(q.agent)) {
    return BadQuery(request, "agent must be an agent name (or absent, for every agent)");
  }
  q.payload_value = QueryParam(request.query, "capability").value_or("");
  if (!q.payload_value.empty()) {
    if (!IsCapabilityName(q.payload_value)) {
      return BadQuery(request, "capability must be a capability name (or absent, for every capability)");
    }
    q.payload_member = "capability";
  }
  return q;
}

Response List(const ApiContext& ctx, const Request& request) {
  if (!ctx.journal) {
    return ProblemResponse(Unavailable("the journal is not available on this node now", request.path));
  }
  auto query = ReadQuery(request);
  if (auto* refused = std::get_if<Response>(&query)) return std::move(*refused);
  const auto& q = std::get<journal::KindQuery>(query);
  auto entries = ctx.journal->ReadKind(q);
  if (!entries.ok()) {
    std::fprintf(stderr, "volent node: reading egress denials: %s\n", entries.message().c_str());
    return ProblemResponse(MakeProblem(500, "internal", "Internal error",
                                       "the node could not read its journal; see its log (volent journal "
                                       "verify checks it)",
                                       request.path));
  }
  json list = json::array();
  for (const auto& e : *entries) list.push_back(DenialJson(e));
  json next = nullptr;
  if (!entries->empty() && entries->size() >= q.limit) next = entries->back().seq;
  return JsonResponse(200, {{"denials", std::move(list)}, {"next", std::move(next)}});
}

json DenialSchema() {
  auto text = [](const char* description) { return json{{"type", "string"}, {"description", description}}; };
  return {{"type", "object"},
          {"required",
           {"seq", "time", "agent", "run", "step", "key", "capability", "method", "url", "reason", "hop", "origin"}},
          {"properties",
           {{"seq", {{"type", "integer"}, {"minimum", 1}, {"description", "The journal entry's number"}}},
            {"time", {{"type", "string"}, {"format", "date-time"}}},
            {"agent", text("The agent whose step was denied; \"egress\" when no step asked")},
            {"run", {{"type", "string"}}},
            {"step", {{"type", "integer"}, {"minimum", 0}}},
            {"key", text("The journal key, AGENT/RUN/STEP: the step's idempotency key")},
            {"capability", text("The capability the request was made under")},
            {"method", {{"type", "string"}}},
            {"url", text("The URL refused (after redirects, the hop's)")},
            {"reason", text("Why the gate refused it")},
            {"hop", {{"type", "integer"}, {"minimum", 0}, {"description", "0: the request itself; N: its Nth redirect"}}},
            {"origin", text("Who asked: the step's key, or \"\"")}}}};
}

json PageSchema() {
  return {{"type", "object"},
          {"required", {"denials", "next"}},
          {"properties",
           {{"denials", {{"type", "array"}, {"items", DenialSchema()}}},
            {"next", {{"type", {"integer", "null"}}}}}}};
}

}  // namespace

void AddEgressRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"GET", "/v1/egress/denials", "listEgressDenials",
             "List outbound requests the egress gate denied, a page at a time",
             {{"order", "query", "newest (the default) or oldest first",
               {{"type", "string"}, {"enum", {"newest", "oldest"}}, {"default", "newest"}}, false},
              {"after", "query",
               "Continue after this entry in the page's order (the previous page's next; absent: from the start)",
               {{"type", "integer"}, {"minimum", 0}}, false},
              {"limit", "query", "Denials per page (1-1000, default 100)",
               {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 100}}, false},
              {"agent", "query", "Only the denials of this agent's steps",
               {{"type", "string"}, {"pattern", "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"}}, false},
              {"capability", "query", "Only the denials under this capability",
               {{"type", "string"}, {"pattern", kCapabilityPattern}}, false}},
             {}, {},
             {{200, "A page of denials", "application/json", PageSchema()}},
             [ctx](const Request& r, const PathParams&) { return List(*ctx, r); },
             access::Role::kReader});
}

}  // namespace volent::control
