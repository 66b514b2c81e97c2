// GET /v1/journal: the journal's entries a page at a time, ascending, with
// its digest (docs/control-api.md, docs/journal.md). Read-only: the API
// never writes the journal.
#include <charconv>
#include <cstdio>

#include "volent/control/api.h"
#include "volent/control/json_api.h"

namespace volent::control {
namespace {

using nlohmann::json;

Problem Internal(const Request& request) {
  return MakeProblem(500, "internal", "Internal error",
                     "the node could not read its journal; see its log (volent journal verify checks it)",
                     request.path);
}

json EntryJson(const journal::Entry& e) {
  // The payload is the compact JSON the journal stored (and hashed); it is
  // served as JSON. Were it not JSON, it is served as the text it is.
  json payload = json::parse(e.payload, nullptr, false);
  if (payload.is_discarded()) payload = e.payload;
  return {{"seq", e.seq},
          {"kind", std::string(journal::KindName(e.kind))},
          {"agent", e.agent},
          {"run", e.run},
          {"step", e.step},
          {"key", e.key},
          {"payload", std::move(payload)},
          {"time", TimeOrNull(e.time_ms)},
          {"time_ms", e.time_ms},
          {"prev_hash", e.prev_hash},
          {"hash", e.hash}};
}

Response Read(const ApiContext& ctx, const Request& request) {
  if (!ctx.journal) {
    return ProblemResponse(Unavailable("the journal is not available on this node now", request.path));
  }
  uint64_t after = 0;
  if (auto text = QueryParam(request.query, "after")) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), after);
    if (ec != std::errc() || end != text->data() + text->size()) {
      return ProblemResponse(MakeProblem(
          400, "after must be an entry number (0 or more; the previous page's next)", request.path));
    }
  }
  auto limit = PageLimit(request.query);
  if (!limit) return ProblemResponse(BadLimit(request.path));

  // The digest first: the page may then hold entries past it, never stop
  // short of it.
  auto digest = ctx.journal->GetDigest();
  if (!digest.ok()) {
    std::fprintf(stderr, "volent node: journal digest: %s\n", digest.message().c_str());
    return ProblemResponse(Internal(request));
  }
  auto entries = ctx.journal->Read(after, *limit);
  if (!entries.ok()) {
    std::fprintf(stderr, "volent node: journal read: %s\n", entries.message().c_str());
    return ProblemResponse(Internal(request));
  }
  json list = json::array();
  for (const auto& e : *entries) list.push_back(EntryJson(e));
  json next = nullptr;
  if (!entries->empty() && entries->size() >= *limit) next = entries->back().seq;
  return JsonResponse(200, {{"digest", {{"entries", digest->entries}, {"head", digest->ToString()}}},
                            {"entries", std::move(list)},
                            {"next", std::move(next)}});
}

json Hex64() { return {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}; }

// Every kind's stored name, in EntryKind's order.
json KindNames() {
  json names = json::array();
  for (size_t i = 0; i < journal::kKindCount; ++i) {
    names.push_back(std::string(journal::KindName(static_cast<journal::EntryKind>(i))));
  }
  return names;
}

json EntrySchema() {
  return {{"type", "object"},
          {"required",
           {"seq", "kind", "agent", "run", "step", "key", "payload", "time", "time_ms", "prev_hash", "hash"}},
          {"properties",
           {{"seq", {{"type", "integer"}, {"minimum", 1}}},
            {"kind", {{"enum", KindNames()}}},
            {"agent", {{"type", "string"}}},
            {"run", {{"type", "string"}}},
            {"step", {{"type", "integer"}, {"minimum", 0}}},
            {"key",
             {{"type", "string"},
              {"description", "The idempotency key, AGENT/RUN/STEP (a sealed tool's request: AGENT/RUN/STEP/http/N)"}}},
            {"payload", {{"description", "The entry's payload as stored (JSON)"}}},
            {"time", TimeOrNullSchema()},
            {"time_ms", {{"type", "integer"}, {"description", "Unix time in milliseconds"}}},
            {"prev_hash", Hex64()},
            {"hash", Hex64()}}}};
}

json PageSchema() {
  return {{"type", "object"},
          {"required", {"digest", "entries", "next"}},
          {"properties",
           {{"digest",
             {{"type", "object"},
              {"required", {"entries", "head"}},
              {"properties",
               {{"entries", {{"type", "integer"}, {"minimum", 0}}},
                {"head", {{"type", "string"}, {"pattern", "^sha256:[0-9a-f]{64}$"}}}}}}},
            {"entries", {{"type", "array"}, {"items", EntrySchema()}}},
            {"next", {{"type", {"integer", "null"}}}}}}};
}

}  // namespace

void AddJournalRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"GET", "/v1/journal", "getJournal", "Read the journal of side effects, a page at a time",
             {{"after", "query", "Entries numbered after this one (the previous page's next; default 0)",
               {{"type", "integer"}, {"minimum", 0}, {"default", 0}}, false},
              {"limit", "query", "Entries per page (1-1000, default 100)",
               {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 100}}, false}},
             {}, {},
             {{200, "A page of entries, ascending, and the journal's digest", "application/json", PageSchema()}},
             [ctx](const Request& r, const PathParams&) { return Read(*ctx, r); },
             access::Role::kReader});
}

}  // namespace volent::control
