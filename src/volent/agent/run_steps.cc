// Step replay: a run advanced step by step, each step taken from the journal
// if it is there (a replay) or performed and journaled (intent first).
#include "volent/agent/run_manager.h"

#include "core/crash_point.h"
#include "volent/agent/crash_points.h"
#include "volent/agent/run_manager_internal.h"
#include "volent/agent/step_outcome.h"

namespace volent::agent {

using namespace internal;

RunManager::Progress RunManager::Advance(const std::string& run_key, Run run) {
  auto fail = [&](const std::string& why) {
    // The journal could not record a step: the run stops here and resumes
    // when the node next starts (nothing was lost: what is journaled stays).
    Record(run_key, [&](Run& r) {
      r.view.status = RunStatus::kFailed;
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
    if (RecordedOutcome(completion) != StepOutcome::kAnswered) {
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
                  {"outcome", StepOutcomeName(StepOutcome::kUnknownTool)},
                  {"reason", "the agent has no tool named \"" + tool_call.name + "\""}};
      } else if (tool->needs_approval) {
        auto decision = Approval(run_key, run, this_step, *tool, tool_call.arguments);
        if (!decision) return fail(decision.message());
        if (decision->is_null()) return Progress::kWaiting;
        if (StringField(*decision, "decision") != "approved") {
          result = {{"type", "tool"},
                    {"tool", tool->name},
                    {"outcome", StepOutcomeName(StepOutcome::kDeniedByApprover)},
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
      const bool is_error = RecordedOutcome(result) != StepOutcome::kAnswered;
      results.push_back({tool_call.id, ToolResultForModel(tool ? tool->kind : "", result), is_error});
    }
    conversation.messages.push_back(model::Message::ToolResults(std::move(results)));
  }
}

RunManager::Progress RunManager::Finish(const std::string& run_key, const Run& run, bool ok,
                                        const nlohmann::json& output, const std::string& error) {
  nlohmann::json outcome = {{"status", RunStatusName(ok ? RunStatus::kFinished : RunStatus::kFailed)}};
  if (ok) outcome["output"] = output;
  else outcome["error"] = error;
  auto finished = journal_.Append(EntryKind::kRunFinished, EffectKey{run.view.agent, run.view.id, 0}, outcome);
  if (!finished) {
    Record(run_key, [&](Run& r) {
      r.view.status = RunStatus::kFailed;
      r.view.error = "the journal could not record the end of the run (" + finished.message() +
                     "); the run resumes when the node restarts";
    });
    return Progress::kFailed;
  }
  // The entry as recorded (the first one, if another process wrote it).
  nlohmann::json recorded = Payload(finished->entry);
  Record(run_key, [&](Run& r) {
    r.view.status = EndedStatus(recorded);
    r.view.output = recorded.is_object() ? recorded.value("output", nlohmann::json()) : nlohmann::json();
    r.view.error = StringField(recorded, "error");
    r.view.finished_ms = finished->entry.time_ms;
  });
  return EndedStatus(recorded) == RunStatus::kFinished ? Progress::kFinished : Progress::kFailed;
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
  if (it != runs_.end()) it->second.view.status = RunStatus::kWaitingApproval;
  return nlohmann::json();
}

Result<RunManager::StepState> RunManager::Step(const std::string& run_key, const Run& run, uint64_t step,
                                                 const nlohmann::json& request, const ToolDef* tool,
                                                 const Starter& start) {
  // Crash points count tool effects only (model calls are steps too, but the
  // chaos test's receiver sees tool effects).
  auto crash_point = [tool](std::string_view point) {
    if (tool) core::CrashPoint(agent::kNodeCrashEnv, point);
  };
  EffectKey key{run.view.agent, run.view.id, step};
  const std::string key_text = key.ToString();
  crash_point("before-intent");
  auto begun = journal_.BeginEffect(key, request);
  if (!begun) return begun.error();
  if (begun->outcome == journal::BeginOutcome::kDone) {
    if (run.resumed) core::CrashPoint(agent::kNodeCrashEnv, "replay");
    return StepState{false, Payload(*begun->completion)};
  }
  nlohmann::json recorded = request;
  if (begun->outcome == journal::BeginOutcome::kAlreadyIntended) {
    {
      // Started by this process and not answered yet: the callback will
      // schedule the run; starting it again would duplicate it.
      std::lock_guard lock(mu_);
      if (in_flight_keys_.count(key_text)) return StepState{true, nullptr};
    }
    if (run.resumed) core::CrashPoint(agent::kNodeCrashEnv, "replay");
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
  return StepState{true, nullptr};
}

}  // namespace volent::agent
