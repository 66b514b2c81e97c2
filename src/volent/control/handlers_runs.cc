// Runs of agents: start one (idempotent with a given id), get one, list
// them (docs/control-api.md, "Runs and approvals"). The runs themselves are
// agent::Runs' business; these routes check requests, call it and write its
// answers as JSON.
#include <variant>

#include "volent/agent/step_outcome.h"
#include "volent/control/api.h"
#include "volent/control/json_api.h"
#include "volent/journal/journal.h"
#include "volent/store/agent_name.h"

namespace volent::control {
namespace {

using nlohmann::json;

constexpr size_t kMaxRunIdLength = 64;

// 1 to 64 of [A-Za-z0-9_-] (agent::Runs::StartRun's contract).
bool IsValidRunId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRunIdLength) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

constexpr char kRunIdRule[] = "a run id is 1 to 64 letters, digits, '_' and '-'";

Problem BadName(const Request& request) {
  return MakeProblem(400,
                     "an agent name is 1 to 63 lowercase letters, digits and '-', starting and "
                     "ending with a letter or digit",
                     request.path);
}

Problem NoRuns(const Request& request) {
  return Unavailable("runs are not available on this node now (its agent loop is not running)", request.path);
}

// Every status's name, for the schema: the enum's one mapping.
json RunStatusNames() {
  json names = json::array();
  for (agent::RunStatus status : agent::kAllRunStatuses) names.push_back(std::string(agent::RunStatusName(status)));
  return names;
}

json RunJson(const agent::RunView& run) {
  return {{"agent", run.agent},
          {"id", run.id},
          {"status", std::string(agent::RunStatusName(run.status))},
          {"input", run.input},
          {"output", run.output},
          {"error", run.error.empty() ? json(nullptr) : json(run.error)},
          {"steps_done", run.steps_done},
          {"started_at", TimeOrNull(run.started_ms)},
          {"finished_at", TimeOrNull(run.finished_ms)}};
}

Response Start(const ApiContext& ctx, const Request& request, const PathParams& params) {
  if (!ctx.runs) return ProblemResponse(NoRuns(request));
  const std::string& name = params.find("name")->second;
  if (!store::IsValidAgentName(name)) return ProblemResponse(BadName(request));
  auto parsed = ParseJsonObject(request.body, request.path);
  if (auto* problem = std::get_if<Problem>(&parsed)) return ProblemResponse(*problem);
  const json& body = std::get<json>(parsed);
  std::vector<FieldError> errors = UnknownMembers(body, {"id", "input"});
  std::string id;
  if (auto it = body.find("id"); it != body.end()) {
    if (!it->is_string() || !IsValidRunId(it->get_ref<const std::string&>())) {
      errors.push_back({"/id", 0, 0, std::string("must be a string: ") + kRunIdRule});
    } else {
      id = it->get<std::string>();
    }
  }
  if (!errors.empty()) return ProblemResponse(InvalidBody(std::move(errors), request.path));
  auto input_it = body.find("input");
  const json input = input_it != body.end() ? *input_it : json::object();

  auto started = ctx.runs->StartRun(name, id, input);
  if (!started.ok()) return ProblemResponse(RefusalProblem(started.error(), request.path));
  const agent::RunView& run = started->run;
  Response r = JsonResponse(started->created ? 201 : 200, RunJson(run));
  r.headers.emplace_back("Location", "/v1/agents/" + run.agent + "/runs/" + run.id);
  return r;
}

// The most requests of one call the view lists (a call makes at most 16).
constexpr uint64_t kMaxListedRequests = 64;

json ParsedPayload(const journal::Entry& entry) {
  json payload = json::parse(entry.payload, nullptr, /*allow_exceptions=*/false);
  return payload.is_object() ? payload : json::object();
}

// The HTTP requests of a sealed call at `step`, from their journal entries
// (tool-http-request, tool-http-answer), in order: each as soon as it was
// journaled, before it was sent, whatever became of the call.
core::Result<json> HttpRequests(journal::Journal& journal, const journal::EffectKey& step) {
  json requests = json::array();
  for (uint64_t number = 1; number <= kMaxListedRequests; ++number) {
    auto asked = journal.GetForRequest(step, number, journal::EntryKind::kToolHttpRequest);
    if (!asked.ok()) return asked.error();
    if (!*asked) break;
    auto answered = journal.GetForRequest(step, number, journal::EntryKind::kToolHttpAnswer);
    if (!answered.ok()) return answered.error();
    const json request = ParsedPayload(**asked).value("request", json::object());
    auto text = [&](const char* name, const char* otherwise) {
      auto it = request.is_object() ? request.find(name) : request.end();
      return request.is_object() && it != request.end() && it->is_string() ? it->get<std::string>()
                                                                            : std::string(otherwise);
    };
    json item = {{"number", number},
                 {"method", text("method", "GET")},
                 {"url", text("url", "")},
                 {"requested_at", TimeOrNull((*asked)->time_ms)},
                 {"answered_at", nullptr},
                 {"status", nullptr},
                 {"error", nullptr}};
    if (*answered) {
      const json answer = ParsedPayload(**answered).value("answer", json::object());
      item["answered_at"] = TimeOrNull((*answered)->time_ms);
      if (answer.is_object() && answer.contains("status") && answer["status"].is_number_integer()) {
        item["status"] = answer["status"];
      } else if (answer.is_object() && answer.contains("error") && answer["error"].is_string()) {
        item["error"] = answer["error"];
      }
    }
    requests.push_back(std::move(item));
  }
  return requests;
}

// The run's tool calls, from the journal, in step order: {"step","tool",
// "outcome"} ("in-progress" while the call has no completion, "unknown" for a
// completion whose outcome is none of agent/step_outcome.h's), and for a
// sealed call its "stdin", the path of its receipt, when it made HTTP
// requests its "http_exchanges" (the receipt's input
// http-exchanges.jsonl, docs/tools.md) and "http_requests", each request as
// journaled before it was sent (a call out of time or under way included). A
// run takes at most a few hundred steps (its budget), so they are looked up
// one by one.
core::Result<json> ToolCalls(journal::Journal& journal, const agent::RunView& run) {
  json calls = json::array();
  for (uint64_t step = 1; step <= static_cast<uint64_t>(run.steps_done) + 1; ++step) {
    const journal::EffectKey key{run.agent, run.id, step};
    auto state = journal.Lookup(key);
    if (!state.ok()) return state.error();
    if (!state->intent) continue;
    const json intent = ParsedPayload(*state->intent);
    if (intent.value("type", json()) != "tool") continue;
    json call = {{"step", step}, {"tool", intent.value("tool", json(""))}, {"outcome", "in-progress"}};
    if (state->completion) {
      const json payload = ParsedPayload(*state->completion);
      // Named through the one mapping: a record this node cannot read says
      // so instead of passing its text on.
      const std::optional<agent::StepOutcome> outcome = agent::RecordedOutcome(payload);
      call["outcome"] = outcome ? agent::StepOutcomeName(*outcome) : "unknown";
      if (payload.contains("stdin")) call["stdin"] = payload["stdin"];
      if (payload.contains("receipt")) {
        call["receipt"] = "/v1/agents/" + run.agent + "/runs/" + run.id + "/steps/" + std::to_string(step) + "/receipt";
      }
      if (payload.contains("http_exchanges")) call["http_exchanges"] = payload["http_exchanges"];
    }
    auto requests = HttpRequests(journal, key);
    if (!requests.ok()) return requests.error();
    if (!requests->empty()) call["http_requests"] = std::move(*requests);
    calls.push_back(std::move(call));
  }
  return calls;
}

// The run with its tool calls.
Response RunWithToolCalls(const ApiContext& ctx, const Request& request, const agent::RunView& run) {
  json body = RunJson(run);
  if (ctx.journal) {
    auto calls = ToolCalls(*ctx.journal, run);
    if (!calls.ok()) return ProblemResponse(Unavailable("the journal cannot be read: " + calls.message(), request.path));
    body["tool_calls"] = std::move(*calls);
  }
  return JsonResponse(200, body);
}

Response Get(const ApiContext& ctx, const Request& request, const PathParams& params) {
  if (!ctx.runs) return ProblemResponse(NoRuns(request));
  const std::string& name = params.find("name")->second;
  const std::string& id = params.find("id")->second;
  if (!store::IsValidAgentName(name)) return ProblemResponse(BadName(request));
  if (!IsValidRunId(id)) return ProblemResponse(MakeProblem(400, kRunIdRule, request.path));
  auto run = ctx.runs->GetRun(name, id);
  if (!run.ok()) return ProblemResponse(RefusalProblem(run.error(), request.path));
  return RunWithToolCalls(ctx, request, *run);
}

// A run by its id alone: run ids are unique per agent, so an id two agents
// use is a conflict that names both runs' paths rather than a guess.
Response GetById(const ApiContext& ctx, const Request& request, const PathParams& params) {
  if (!ctx.runs) return ProblemResponse(NoRuns(request));
  const std::string& id = params.find("id")->second;
  if (!IsValidRunId(id)) return ProblemResponse(MakeProblem(400, kRunIdRule, request.path));
  const std::vector<agent::RunView> found = ctx.runs->FindRuns(id);
  if (found.empty()) {
    return ProblemResponse(MakeProblem(404, "not-found", "Not found", "no agent has a run \"" + id + "\"",
                                       request.path));
  }
  if (found.size() > 1) {
    std::string paths;
    for (const agent::RunView& run : found) {
      paths += (paths.empty() ? "" : ", ") + std::string("/v1/agents/") + run.agent + "/runs/" + run.id;
    }
    return ProblemResponse(MakeProblem(409, "conflict", "Conflict",
                                       "more than one agent has a run \"" + id + "\": " + paths, request.path));
  }
  return RunWithToolCalls(ctx, request, found.front());
}

// The Ampoule receipt of one sealed tool call, exactly as journaled: the
// file `ampoule-verify` takes (docs/tools.md).
Response GetReceipt(const ApiContext& ctx, const Request& request, const PathParams& params) {
  if (!ctx.journal) return ProblemResponse(Unavailable("the journal is not open", request.path));
  const std::string& name = params.find("name")->second;
  const std::string& id = params.find("id")->second;
  const std::string& step_text = params.find("step")->second;
  if (!store::IsValidAgentName(name)) return ProblemResponse(BadName(request));
  if (!IsValidRunId(id)) return ProblemResponse(MakeProblem(400, kRunIdRule, request.path));
  uint64_t step = 0;
  const bool digits = !step_text.empty() && step_text.size() <= 9 &&
                      step_text.find_first_not_of("0123456789") == std::string::npos && step_text[0] != '0';
  if (digits) step = std::stoull(step_text);
  if (step == 0) return ProblemResponse(MakeProblem(400, "a step is a whole number from 1", request.path));
  auto entry = ctx.journal->Get(journal::EffectKey{name, id, step}, journal::EntryKind::kCompletion);
  if (!entry.ok()) return ProblemResponse(Unavailable("the journal cannot be read: " + entry.message(), request.path));
  const json payload = *entry ? json::parse((*entry)->payload, nullptr, false) : json();
  if (!payload.is_object() || !payload.contains("receipt")) {
    return ProblemResponse(MakeProblem(404, "not-found", "Not found",
                                       "step " + step_text + " of run " + id + " of agent " + name +
                                           " is not a completed sealed tool call",
                                       request.path));
  }
  return JsonResponse(200, payload["receipt"]);
}

Response List(const ApiContext& ctx, const Request& request) {
  if (!ctx.runs) return ProblemResponse(NoRuns(request));
  auto limit = PageLimit(request.query);
  if (!limit) return ProblemResponse(BadLimit(request.path));
  std::string agent = QueryParam(request.query, "agent").value_or("");
  if (!agent.empty() && !store::IsValidAgentName(agent)) {
    return ProblemResponse(MakeProblem(400, "agent must be an agent name (or absent, for every agent)", request.path));
  }
  json runs = json::array();
  for (const auto& run : ctx.runs->ListRuns(agent, *limit)) {
    if (runs.size() == *limit) break;  // the limit holds whatever the runs return
    runs.push_back(RunJson(run));
  }
  return JsonResponse(200, {{"runs", std::move(runs)}});
}

json RunSchema() {
  return {{"type", "object"},
          {"required",
           {"agent", "id", "status", "input", "output", "error", "steps_done", "started_at", "finished_at"}},
          {"properties",
           {{"tool_calls",
             {{"type", "array"},
              {"description", "GET of one run only: its tool calls, in step order"},
              {"items",
               {{"type", "object"},
                {"required", {"step", "tool", "outcome"}},
                {"properties",
                 {{"step", {{"type", "integer"}, {"minimum", 1}}},
                  {"tool", {{"type", "string"}}},
                  {"outcome",
                   {{"type", "string"},
                    {"description", "The completion's outcome; \"in-progress\" while the call has none, \"unknown\" "
                                    "for a completion whose outcome this node does not know"}}},
                  {"stdin", {{"type", "string"}, {"description", "A sealed call: the exact arguments it read"}}},
                  {"receipt",
                   {{"type", "string"}, {"description", "A sealed call: the path of its Ampoule receipt"}}},
                  {"http_exchanges",
                   {{"type", "string"},
                    {"description",
                     "A sealed call that made HTTP requests: its recorded requests and answers, the exact bytes of "
                     "the receipt's input http-exchanges.jsonl"}}},
                  {"http_requests",
                   {{"type", "array"},
                    {"description",
                     "A sealed call that made HTTP requests: each as journaled before it was sent "
                     "(tool-http-request) and its answer's outcome (tool-http-answer), out of time or under way "
                     "included"},
                    {"items",
                     {{"type", "object"},
                      {"required", {"number", "method", "url", "requested_at", "answered_at", "status", "error"}},
                      {"properties",
                       {{"number", {{"type", "integer"}, {"minimum", 1}}},
                        {"method", {{"type", "string"}}},
                        {"url", {{"type", "string"}}},
                        {"requested_at", TimeOrNullSchema()},
                        {"answered_at", TimeOrNullSchema()},
                        {"status",
                         {{"type", {"integer", "null"}}, {"description", "The response's status; null without one"}}},
                        {"error",
                         {{"type", {"string", "null"}},
                          {"description", "Why there is no response (denied, not-sent, failed, invalid); null with one"}}}}}}}}}}}}}}},
            {"agent", {{"type", "string"}}},
            {"id", {{"type", "string"}}},
            {"status", {{"enum", RunStatusNames()}}},
            {"input", {{"description", "The input given when the run was started (any JSON)"}}},
            {"output", {{"description", "The model's final answer; null until the run is finished"}}},
            {"error", {{"type", {"string", "null"}}, {"description", "Why the run failed; null unless failed"}}},
            {"steps_done", {{"type", "integer"}, {"minimum", 0}}},
            {"started_at", TimeOrNullSchema()},
            {"finished_at", TimeOrNullSchema()}}}};
}

json StartSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"id",
             {{"type", "string"},
              {"pattern", "^[A-Za-z0-9_-]{1,64}$"},
              {"description", "Makes the start idempotent: a run with this id is returned as it is"}}},
            {"input", {{"description", "The run's input, any JSON (default {})"}}}}}};
}

ParameterDoc NameParam() {
  return {"name", "path", "The agent's name (metadata.name)",
          {{"type", "string"}, {"pattern", "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"}}, true};
}

ParameterDoc RunIdParam() {
  return {"id", "path", "The run's id", {{"type", "string"}, {"pattern", "^[A-Za-z0-9_-]{1,64}$"}}, true};
}

}  // namespace

void AddRunRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"POST", "/v1/agents/{name}/runs", "startRun",
             "Start a run of an agent (idempotent when the body names its id)", {NameParam()},
             {"application/json"}, StartSchema(),
             {{201, "Started", "application/json", RunSchema()},
              {200, "A run with this id existed; it is returned as it is", "application/json", RunSchema()}},
             [ctx](const Request& r, const PathParams& p) { return Start(*ctx, r, p); },
             access::Role::kOperator});
  table.Add({"GET", "/v1/agents/{name}/runs/{id}", "getRun", "A run of an agent", {NameParam(), RunIdParam()},
             {}, {}, {{200, "The run", "application/json", RunSchema()}},
             [ctx](const Request& r, const PathParams& p) { return Get(*ctx, r, p); },
             access::Role::kReader});
  table.Add({"GET", "/v1/runs/{id}", "getRunById",
             "A run by its id alone, with its tool calls (409 if more than one agent has a run with that id)",
             {RunIdParam()}, {}, {}, {{200, "The run", "application/json", RunSchema()}},
             [ctx](const Request& r, const PathParams& p) { return GetById(*ctx, r, p); },
             access::Role::kReader});
  table.Add({"GET", "/v1/agents/{name}/runs/{id}/steps/{step}/receipt", "getToolReceipt",
             "The Ampoule receipt of a sealed tool call (the file ampoule-verify checks)",
             {NameParam(), RunIdParam(),
              {"step", "path", "The step of the tool call (tool_calls[].step)",
               {{"type", "string"}, {"pattern", "^[1-9][0-9]{0,8}$"}}, true}},
             {}, {},
             {{200, "The receipt: a DSSE envelope (docs/receipt-spec.md)", "application/json",
               {{"type", "object"}, {"required", {"payload", "payloadType", "signatures"}}}}},
             [ctx](const Request& r, const PathParams& p) { return GetReceipt(*ctx, r, p); },
             access::Role::kReader});
  table.Add({"GET", "/v1/runs", "listRuns", "List runs, newest first",
             {{"agent", "query", "Only the runs of this agent",
               {{"type", "string"}, {"pattern", "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"}}, false},
              {"limit", "query", "At most this many runs (1-1000, default 100)",
               {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 100}}, false}},
             {}, {},
             {{200, "The runs, newest first", "application/json",
               {{"type", "object"},
                {"required", json::array({"runs"})},
                {"properties", {{"runs", {{"type", "array"}, {"items", RunSchema()}}}}}}}},
             [ctx](const Request& r, const PathParams&) { return List(*ctx, r); },
             access::Role::kReader});
}

}  // namespace volent::control
