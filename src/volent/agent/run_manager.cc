#include "volent/agent/run_manager.h"

#include <algorithm>
#include <random>

#include "core/crash_point.h"
#include "volent/node/agent_name.h"

namespace volent::agent {
namespace {

using ampoule::Error;
using ampoule::Result;
using ampoule::Status;
using journal::EffectKey;
using journal::EntryKind;

constexpr size_t kMaxRunIdLength = 64;
constexpr size_t kMaxDeciderLength = 200;
constexpr size_t kMaxReasonLength = 1000;
constexpr size_t kRebuildPage = 1000;

bool IsValidRunId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRunIdLength) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool IsPrintable(std::string_view text) {
  return std::none_of(text.begin(), text.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// "run-" and 16 random hexadecimal digits.
std::string NewRunId() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  static const char kHex[] = "0123456789abcdef";
  uint64_t bits = random();
  std::string id = "run-";
  for (int i = 0; i < 16; ++i, bits >>= 4) id += kHex[bits & 15];
  return id;
}

// A stored payload as JSON (null if it is not: Verify reports such entries).
nlohmann::json Payload(const journal::Entry& entry) {
  auto value = nlohmann::json::parse(entry.payload, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? nlohmann::json() : value;
}

std::string StringField(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

ampoule::Error Refuse(ampoule::ErrorKind kind, std::string message) { return {std::move(message), kind}; }

void ApplyDecision(ApprovalView& approval, const journal::Entry& entry) {
  nlohmann::json payload = Payload(entry);
  approval.decision = StringField(payload, "decision");
  approval.by = StringField(payload, "by");
  approval.reason = StringField(payload, "reason");
  approval.decided_ms = entry.time_ms;
  if (payload.is_object()) {
    approval.identity = payload.value("identity", nlohmann::json());
    approval.signature = payload.value("signature", nlohmann::json());
  }
}

}  // namespace

RunManager::RunManager(journal::Journal& journal, node::AgentStore& store, ToolPerformer tools, ModelPerformer model)
    : journal_(journal), store_(store), tools_(std::move(tools)), model_(std::move(model)) {}

RunManager::~RunManager() { Stop(); }

std::string RunManager::RunKey(std::string_view agent, std::string_view run_id) {
  return std::string(agent) + "/" + std::string(run_id);
}

Result<std::unique_ptr<RunManager>> RunManager::Start(journal::Journal& journal, node::AgentStore& store,
                                                      ToolPerformer tools, ModelPerformer model,
                                                      RunManagerOptions options) {
  std::unique_ptr<RunManager> manager(new RunManager(journal, store, std::move(tools), std::move(model)));
  AMP_RETURN_IF_ERROR(manager->Rebuild());
  RunManager* self = manager.get();
  {
    std::lock_guard lock(self->mu_);
    for (auto& [key, run] : self->runs_) {
      if (run.view.status != "running") continue;
      run.resumed = true;
      self->Schedule(key);
    }
  }
  for (size_t i = 0; i < std::max<size_t>(options.threads, 1); ++i) {
    self->workers_.emplace_back([self] { self->Work(); });
  }
  return manager;
}

// Reads the whole journal once: runs, their progress, and approvals.
Status RunManager::Rebuild() {
  uint64_t after = 0;
  for (;;) {
    auto page = journal_.Read(after, kRebuildPage);
    if (!page) return page.error();
    if (page->empty()) return Status::Ok();
    for (const journal::Entry& entry : *page) {
      after = entry.seq;
      const std::string run_key = RunKey(entry.agent, entry.run);
      auto run = runs_.find(run_key);
      switch (entry.kind) {
        case EntryKind::kRunStarted: {
          nlohmann::json payload = Payload(entry);
          Run fresh;
          fresh.view.agent = entry.agent;
          fresh.view.id = entry.run;
          fresh.view.status = "running";
          fresh.view.input = payload.is_object() ? payload.value("input", nlohmann::json::object())
                                                 : nlohmann::json::object();
          fresh.view.started_ms = entry.time_ms;
          fresh.spec = ReadAgentSpec(payload.is_object() ? payload.value("manifest", nlohmann::json())
                                                         : nlohmann::json());
          runs_[run_key] = std::move(fresh);
          break;
        }
        case EntryKind::kRunFinished:
          if (run != runs_.end()) {
            nlohmann::json payload = Payload(entry);
            run->second.view.status = StringField(payload, "status");
            if (payload.is_object()) run->second.view.output = payload.value("output", nlohmann::json());
            run->second.view.error = StringField(payload, "error");
            run->second.view.finished_ms = entry.time_ms;
          }
          break;
        case EntryKind::kCompletion:
          if (run != runs_.end()) ++run->second.view.steps_done;
          break;
        case EntryKind::kApprovalRequested: {
          nlohmann::json payload = Payload(entry);
          ApprovalView approval;
          approval.id = std::to_string(entry.seq);
          approval.agent = entry.agent;
          approval.run = entry.run;
          approval.step = entry.step;
          approval.tool = StringField(payload, "tool");
          approval.arguments = payload.is_object() ? payload.value("arguments", nlohmann::json()) : nlohmann::json();
          approval.requested_ms = entry.time_ms;
          approval.call_digest = "sha256:" + entry.hash;
          approvals_[entry.seq] = std::move(approval);
          approval_by_key_[entry.key] = entry.seq;
          break;
        }
        case EntryKind::kApprovalDecided: {
          auto id = approval_by_key_.find(entry.key);
          if (id != approval_by_key_.end()) ApplyDecision(approvals_[id->second], entry);
          break;
        }
        default:  // intents, denials: nothing to rebuild from them
          break;
      }
    }
  }
}

void RunManager::Schedule(const std::string& run_key) {
  Run& run = runs_[run_key];
  if (run.queued) {
    run.again = true;
    return;
  }
  run.queued = true;
  queue_.push_back(run_key);
  work_cv_.notify_one();
}

void RunManager::Work() {
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::string run_key = std::move(queue_.front());
    queue_.pop_front();
    Run& run = runs_[run_key];
    run.again = false;
    if (run.view.status == "finished" || run.view.status == "failed") {
      // Ended while queued (a failed journal write in a completion callback).
      run.queued = false;
      if (busy_ == 0 && queue_.empty() && in_flight_keys_.empty()) idle_cv_.notify_all();
      continue;
    }
    ++busy_;
    if (run.view.status == "waiting-approval") run.view.status = "running";
    Run snapshot = run;
    lock.unlock();
    Progress progress = Advance(run_key, std::move(snapshot));
    lock.lock();
    --busy_;
    Run& after = runs_[run_key];
    after.queued = false;
    after.resumed = false;
    // Asked again while advancing: an approval decided, or (when the
    // performer answered on this very thread) the completion just journaled.
    if (after.again && !stopping_ &&
        (progress == Progress::kWaiting || progress == Progress::kParked || progress == Progress::kStopped)) {
      Schedule(run_key);
    }
    after.again = false;
    if (busy_ == 0 && queue_.empty() && in_flight_keys_.empty()) idle_cv_.notify_all();
  }
}

void RunManager::Record(const std::string& run_key, const std::function<void(Run&)>& change) {
  std::lock_guard lock(mu_);
  auto it = runs_.find(run_key);
  if (it != runs_.end()) change(it->second);
}

RunManager::Progress RunManager::Advance(const std::string& run_key, Run run) {
  auto fail = [&](const std::string& why) {
    // The journal could not record a step: the run stops here and resumes
    // when the node next starts (nothing was lost: what is journaled stays).
    Record(run_key, [&](Run& r) {
      r.view.status = "failed";
      r.view.error = "the journal could not record a step (" + why + "); the run resumes when the node restarts";
    });
    return Progress::kFailed;
  };
  const AgentSpec& spec = run.spec;
  model::Conversation conversation = FirstConversation(spec, run.view.input);
  const Starter start_model = [this](const nlohmann::json& request, const std::string& key, StepDone done) {
    model_(request, key, std::move(done));
  };
  uint64_t step = 1;
  for (int calls = 0;; ++calls) {
    if (stopping_) return Progress::kStopped;
    if (calls >= spec.max_calls_per_run) {
      return Finish(run_key, run, false, nullptr,
                    "the model made " + std::to_string(calls) +
                        " calls without a final answer, the most this agent allows per run "
                        "(spec.model.budget.max_calls_per_run, " +
                        std::to_string(kDefaultMaxCallsPerRun) + " when not set)");
    }
    const uint64_t model_step = step++;
    model::ModelCall call;
    call.model = spec.model;
    call.conversation = conversation;
    call.idempotency_key = EffectKey{run.view.agent, run.view.id, model_step}.ToString();
    auto answered = Step(run_key, run, model_step, model::JournalSafeRequest(call), nullptr, start_model);
    if (!answered) return fail(answered.message());
    if (answered->parked) return Progress::kParked;
    const nlohmann::json& completion = answered->result;
    if (StringField(completion, "outcome") != "answered") {
      return Finish(run_key, run, false, nullptr,
                    "model call (step " + std::to_string(model_step) + ") failed: " +
                        StringField(completion, "message"));
    }
    std::optional<model::Answer> answer =
        model::AnswerFromJson(completion.is_object() ? completion.value("answer", nlohmann::json()) : nlohmann::json());
    if (!answer) {
      return Finish(run_key, run, false, nullptr,
                    "the journaled answer of model call (step " + std::to_string(model_step) + ") cannot be read");
    }
    if (answer->tool_calls.empty()) {
      return Finish(run_key, run, true,
                    {{"text", answer->text}, {"stop", std::string(model::StopReasonName(answer->stop))}}, "");
    }
    conversation.messages.push_back(model::Message::Assistant(answer->text, answer->tool_calls));
    std::vector<model::ToolResult> results;
    for (const model::ToolCall& tool_call : answer->tool_calls) {
      if (stopping_) return Progress::kStopped;
      const uint64_t this_step = step++;
      nlohmann::json result;
      const ToolDef* tool = spec.Find(tool_call.name);
      if (!tool) {
        result = {{"type", "tool"},
                  {"tool", tool_call.name},
                  {"outcome", "unknown-tool"},
                  {"reason", "the agent has no tool named \"" + tool_call.name + "\""}};
      } else if (tool->needs_approval) {
        auto decision = Approval(run_key, run, this_step, *tool, tool_call.arguments);
        if (!decision) return fail(decision.message());
        if (decision->is_null()) return Progress::kWaiting;
        if (StringField(*decision, "decision") != "approved") {
          result = {{"type", "tool"},
                    {"tool", tool->name},
                    {"outcome", "denied-by-approver"},
                    {"by", StringField(*decision, "by")},
                    {"reason", StringField(*decision, "reason")}};
        }
      }
      if (result.is_null()) {
        const Starter start_tool = [this, tool](const nlohmann::json& request, const std::string& key,
                                                StepDone done) { tools_(*tool, request, key, std::move(done)); };
        auto performed = Step(run_key, run, this_step, ToolRequest(*tool, tool_call.arguments), tool, start_tool);
        if (!performed) return fail(performed.message());
        if (performed->parked) return Progress::kParked;
        result = std::move(performed->result);
      }
      // The model's id travels with the result, so it can tell which call
      // each result answers. It is shown the result alone, never the rest of
      // the completion (tool_call.h: ToolResultForModel).
      const bool is_error = StringField(result, "outcome") != "answered";
      results.push_back({tool_call.id, ToolResultForModel(tool ? tool->kind : "", result), is_error});
    }
    conversation.messages.push_back(model::Message::ToolResults(std::move(results)));
  }
}

RunManager::Progress RunManager::Finish(const std::string& run_key, const Run& run, bool ok,
                                        const nlohmann::json& output, const std::string& error) {
  nlohmann::json outcome = {{"status", ok ? "finished" : "failed"}};
  if (ok) outcome["output"] = output;
  else outcome["error"] = error;
  auto finished = journal_.Append(EntryKind::kRunFinished, EffectKey{run.view.agent, run.view.id, 0}, outcome);
  if (!finished) {
    Record(run_key, [&](Run& r) {
      r.view.status = "failed";
      r.view.error = "the journal could not record the end of the run (" + finished.message() +
                     "); the run resumes when the node restarts";
    });
    return Progress::kFailed;
  }
  // The entry as recorded (the first one, if another process wrote it).
  nlohmann::json recorded = Payload(finished->entry);
  Record(run_key, [&](Run& r) {
    r.view.status = StringField(recorded, "status");
    r.view.output = recorded.is_object() ? recorded.value("output", nlohmann::json()) : nlohmann::json();
    r.view.error = StringField(recorded, "error");
    r.view.finished_ms = finished->entry.time_ms;
  });
  return StringField(recorded, "status") == "finished" ? Progress::kFinished : Progress::kFailed;
}

Result<nlohmann::json> RunManager::Approval(const std::string& run_key, const Run& run, uint64_t step,
                                            const ToolDef& tool, const nlohmann::json& arguments) {
  EffectKey key{run.view.agent, run.view.id, step};
  auto decided = journal_.Get(key, EntryKind::kApprovalDecided);
  if (!decided) return decided.error();
  if (*decided) return Payload(**decided);
  auto requested = journal_.Append(EntryKind::kApprovalRequested, key,
                                   {{"tool", tool.name}, {"arguments", arguments}});
  if (!requested) return requested.error();
  std::lock_guard lock(mu_);
  const journal::Entry& entry = requested->entry;
  if (!approvals_.count(entry.seq)) {
    ApprovalView approval;
    approval.id = std::to_string(entry.seq);
    approval.agent = entry.agent;
    approval.run = entry.run;
    approval.step = entry.step;
    approval.tool = tool.name;
    approval.arguments = arguments;
    approval.requested_ms = entry.time_ms;
    approval.call_digest = "sha256:" + entry.hash;
    approvals_[entry.seq] = std::move(approval);
    approval_by_key_[entry.key] = entry.seq;
  }
  auto it = runs_.find(run_key);
  if (it != runs_.end()) it->second.view.status = "waiting-approval";
  return nlohmann::json();
}

Result<RunManager::StepOutcome> RunManager::Step(const std::string& run_key, const Run& run, uint64_t step,
                                                 const nlohmann::json& request, const ToolDef* tool,
                                                 const Starter& start) {
  // Crash points count tool effects only (model calls are steps too, but the
  // chaos test's receiver sees tool effects).
  auto crash_point = [tool](std::string_view point) {
    if (tool) ampoule::CrashPoint(ampoule::kNodeCrashEnv, point);
  };
  EffectKey key{run.view.agent, run.view.id, step};
  const std::string key_text = key.ToString();
  crash_point("before-intent");
  auto begun = journal_.BeginEffect(key, request);
  if (!begun) return begun.error();
  if (begun->outcome == journal::BeginOutcome::kDone) {
    if (run.resumed) ampoule::CrashPoint(ampoule::kNodeCrashEnv, "replay");
    return StepOutcome{false, Payload(*begun->completion)};
  }
  nlohmann::json recorded = request;
  if (begun->outcome == journal::BeginOutcome::kAlreadyIntended) {
    {
      // Started by this process and not answered yet: the callback will
      // schedule the run; starting it again would duplicate it.
      std::lock_guard lock(mu_);
      if (in_flight_keys_.count(key_text)) return StepOutcome{true, nullptr};
    }
    if (run.resumed) ampoule::CrashPoint(ampoule::kNodeCrashEnv, "replay");
    recorded = Payload(begun->intent);  // the request recorded first stands
  }
  crash_point("after-intent");
  {
    std::lock_guard lock(mu_);
    in_flight_keys_.insert(key_text);
  }
  // No lock is held: the performer may answer before it returns, on this
  // thread (EffectDone then takes the lock itself).
  start(recorded, key_text, [this, run_key, key, is_tool = tool != nullptr](nlohmann::json result) {
    EffectDone(run_key, key, is_tool, std::move(result));
  });
  return StepOutcome{true, nullptr};
}

// The completion is journaled here, on the thread the performer answered
// on, rather than handed to a worker: the effect's result is then on disk as
// soon as it is known (no window where it sits only in memory, and Stop
// needs no step of its own to record it), and the worker that replays the
// run reads it like any completion. The cost is one journal write (an
// fsync) on that thread, which journal writes serialize anyway.
void RunManager::EffectDone(const std::string& run_key, const EffectKey& key, bool tool, nlohmann::json result) {
  if (tool) ampoule::CrashPoint(ampoule::kNodeCrashEnv, "after-effect");
  auto completed = journal_.CompleteEffect(key, result);
  std::lock_guard lock(mu_);
  in_flight_keys_.erase(key.ToString());
  auto run = runs_.find(run_key);
  if (run != runs_.end()) {
    if (!completed) {
      run->second.view.status = "failed";
      run->second.view.error = "the journal could not record a step (" + completed.message() +
                               "); the run resumes when the node restarts";
    } else {
      if (!completed->already_done) ++run->second.view.steps_done;
      if (!stopping_) Schedule(run_key);
    }
  }
  if (busy_ == 0 && queue_.empty() && in_flight_keys_.empty()) idle_cv_.notify_all();
}

void RunManager::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (auto& worker : workers_) worker.join();
  workers_.clear();
  {
    // The performers call back exactly once per step started: every
    // completion is journaled before the manager goes.
    std::unique_lock lock(mu_);
    idle_cv_.wait(lock, [&] { return in_flight_keys_.empty(); });
  }
  idle_cv_.notify_all();
}

void RunManager::WaitIdle() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [&] { return busy_ == 0 && in_flight_keys_.empty() && (stopping_ || queue_.empty()); });
}

ampoule::Result<StartedRun> RunManager::StartRun(std::string_view agent, std::string_view run_id,
                                                 const nlohmann::json& input) {
  if (!node::IsValidAgentName(agent)) {
    return Refuse(ampoule::ErrorKind::kInvalidArgument, "\"" + std::string(agent) + "\" is not a valid agent name");
  }
  const std::string id = run_id.empty() ? NewRunId() : std::string(run_id);
  if (!IsValidRunId(id)) {
    return Refuse(ampoule::ErrorKind::kInvalidArgument, "a run id is 1 to 64 letters, digits, \"_\" and \"-\"");
  }
  const std::string run_key = RunKey(agent, id);
  {
    std::lock_guard lock(mu_);
    if (stopping_) return Refuse(ampoule::ErrorKind::kUnavailable, "the node is stopping");
    auto existing = runs_.find(run_key);
    if (existing != runs_.end()) return StartedRun{false, existing->second.view};
  }
  auto record = store_.Get(agent);
  if (!record) {
    return Refuse(ampoule::ErrorKind::kNotFound, "no agent named \"" + std::string(agent) + "\"");
  }
  if (record->summary.status == node::AgentStatus::kRejected) {
    return Refuse(ampoule::ErrorKind::kConflict,
                  "the agent \"" + std::string(agent) +
                      "\" does not pass this node's configuration; apply a manifest that does");
  }
  nlohmann::json manifest = nlohmann::json::parse(record->manifest_json, nullptr, /*allow_exceptions=*/false);
  // The run keeps the manifest it started with: replays after a restart use
  // it, whatever happens to the agent since.
  const nlohmann::json given = input.is_null() ? nlohmann::json::object() : input;
  nlohmann::json payload = {{"input", given},
                            {"manifest", manifest.is_discarded() ? nlohmann::json() : manifest},
                            {"generation", record->summary.generation}};
  auto started = journal_.Append(EntryKind::kRunStarted, EffectKey{std::string(agent), id, 0}, payload);
  if (!started) {
    return Refuse(ampoule::ErrorKind::kUnavailable, "the journal cannot record the run: " + started.message());
  }
  std::lock_guard lock(mu_);
  auto existing = runs_.find(run_key);
  if (existing != runs_.end()) return StartedRun{false, existing->second.view};
  Run run;
  run.view.agent = std::string(agent);
  run.view.id = id;
  run.view.status = "running";
  run.view.input = given;
  run.view.started_ms = started->entry.time_ms;
  run.spec = ReadAgentSpec(manifest);
  if (started->already_recorded) {
    // Started by another process sharing the journal: it advances it.
    run.view.input = Payload(started->entry).value("input", nlohmann::json::object());
    runs_[run_key] = run;
    return StartedRun{false, run.view};
  }
  runs_[run_key] = run;
  if (!stopping_) Schedule(run_key);
  return StartedRun{true, run.view};
}

ampoule::Result<RunView> RunManager::GetRun(std::string_view agent, std::string_view run_id) {
  std::lock_guard lock(mu_);
  auto it = runs_.find(RunKey(agent, run_id));
  if (it == runs_.end()) {
    return Refuse(ampoule::ErrorKind::kNotFound,
                  "no run \"" + std::string(run_id) + "\" of agent \"" + std::string(agent) + "\"");
  }
  return it->second.view;
}

std::vector<RunView> RunManager::FindRuns(std::string_view run_id) {
  std::vector<RunView> views;
  std::lock_guard lock(mu_);
  for (const auto& [key, run] : runs_) {
    if (run.view.id == run_id) views.push_back(run.view);
  }
  std::sort(views.begin(), views.end(), [](const RunView& a, const RunView& b) { return a.agent < b.agent; });
  return views;
}

std::vector<RunView> RunManager::ListRuns(std::string_view agent, size_t limit) {
  std::vector<RunView> views;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, run] : runs_) {
      if (agent.empty() || run.view.agent == agent) views.push_back(run.view);
    }
  }
  std::sort(views.begin(), views.end(), [](const RunView& a, const RunView& b) {
    if (a.started_ms != b.started_ms) return a.started_ms > b.started_ms;
    return std::tie(a.agent, a.id) > std::tie(b.agent, b.id);
  });
  if (views.size() > limit) views.resize(limit);
  return views;
}

std::vector<ApprovalView> RunManager::ListApprovals(bool pending_only) {
  std::lock_guard lock(mu_);
  std::vector<ApprovalView> out;
  for (const auto& [id, approval] : approvals_) {
    if (!pending_only || approval.decision.empty()) out.push_back(approval);
  }
  return out;
}

ampoule::Result<ApprovalView> RunManager::GetApproval(std::string_view id) {
  uint64_t seq = 0;
  bool numeric = !id.empty() && id.size() <= 19 && std::all_of(id.begin(), id.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (numeric) seq = std::stoull(std::string(id));
  std::lock_guard lock(mu_);
  auto it = numeric ? approvals_.find(seq) : approvals_.end();
  if (it == approvals_.end()) {
    return Refuse(ampoule::ErrorKind::kNotFound, "no approval \"" + std::string(id) + "\"");
  }
  return it->second;
}

ampoule::Result<ApprovalView> RunManager::Decide(std::string_view id, bool approve, const Decider& decider,
                                                 std::string_view reason) {
  const std::string_view by = decider.by;
  if (by.empty() || by.size() > kMaxDeciderLength || !IsPrintable(by)) {
    return Refuse(ampoule::ErrorKind::kInvalidArgument,
                  "\"by\" must name who decides: 1 to 200 printable characters");
  }
  if (reason.size() > kMaxReasonLength || !IsPrintable(reason)) {
    return Refuse(ampoule::ErrorKind::kInvalidArgument, "\"reason\" must be at most 1000 printable characters");
  }
  ampoule::Result<ApprovalView> current = GetApproval(id);
  if (!current.ok()) return current;
  auto already = [](const ApprovalView& a) {
    return Refuse(ampoule::ErrorKind::kConflict,
                  "approval " + a.id + " was already " + a.decision + " by \"" + a.by + "\"");
  };
  if (!current.value().decision.empty()) return already(current.value());
  const ApprovalView& approval = current.value();
  nlohmann::json payload = {{"decision", approve ? "approved" : "denied"},
                            {"by", std::string(by)},
                            {"reason", std::string(reason)}};
  if (!decider.identity.is_null()) payload["identity"] = decider.identity;
  if (!decider.signature.is_null()) payload["signature"] = decider.signature;
  auto decided = journal_.Append(EntryKind::kApprovalDecided,
                                 EffectKey{approval.agent, approval.run, approval.step}, payload);
  if (!decided) {
    return Refuse(ampoule::ErrorKind::kUnavailable, "the journal cannot record the decision: " + decided.message());
  }
  std::lock_guard lock(mu_);
  ApprovalView& view = approvals_[std::stoull(approval.id)];
  ApplyDecision(view, decided->entry);
  if (decided->already_recorded) return already(view);
  const std::string run_key = RunKey(view.agent, view.run);
  if (runs_.count(run_key) && !stopping_) Schedule(run_key);
  return view;
}

}  // namespace volent::agent
