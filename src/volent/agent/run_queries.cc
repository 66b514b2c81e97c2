// What the control API asks: runs started, looked up and listed; approvals
// listed and decided.
#include "volent/agent/run_manager.h"

#include <algorithm>
#include <random>

#include "volent/agent/run_manager_internal.h"
#include "volent/store/agent_name.h"

namespace volent::agent {

using namespace internal;

namespace {

constexpr size_t kMaxRunIdLength = 64;
constexpr size_t kMaxDeciderLength = 200;
constexpr size_t kMaxReasonLength = 1000;

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

}  // namespace

core::Result<StartedRun> RunManager::StartRun(std::string_view agent, std::string_view run_id,
                                                 const nlohmann::json& input) {
  if (!store::IsValidAgentName(agent)) {
    return Refuse(core::ErrorKind::kInvalidArgument, "\"" + std::string(agent) + "\" is not a valid agent name");
  }
  const std::string id = run_id.empty() ? NewRunId() : std::string(run_id);
  if (!IsValidRunId(id)) {
    return Refuse(core::ErrorKind::kInvalidArgument, "a run id is 1 to 64 letters, digits, \"_\" and \"-\"");
  }
  const std::string run_key = RunKey(agent, id);
  {
    std::lock_guard lock(mu_);
    if (stopping_) return Refuse(core::ErrorKind::kUnavailable, "the node is stopping");
    auto existing = runs_.find(run_key);
    if (existing != runs_.end()) return StartedRun{false, existing->second.view};
  }
  auto record = store_.Get(agent);
  if (!record) {
    return Refuse(core::ErrorKind::kNotFound, "no agent named \"" + std::string(agent) + "\"");
  }
  if (record->summary.status == store::AgentStatus::kRejected) {
    return Refuse(core::ErrorKind::kConflict,
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
    return Refuse(core::ErrorKind::kUnavailable, "the journal cannot record the run: " + started.message());
  }
  std::lock_guard lock(mu_);
  auto existing = runs_.find(run_key);
  if (existing != runs_.end()) return StartedRun{false, existing->second.view};
  Run run;
  run.view.agent = std::string(agent);
  run.view.id = id;
  run.view.status = RunStatus::kRunning;
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

core::Result<RunView> RunManager::GetRun(std::string_view agent, std::string_view run_id) {
  std::lock_guard lock(mu_);
  auto it = runs_.find(RunKey(agent, run_id));
  if (it == runs_.end()) {
    return Refuse(core::ErrorKind::kNotFound,
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

core::Result<ApprovalView> RunManager::GetApproval(std::string_view id) {
  uint64_t seq = 0;
  bool numeric = !id.empty() && id.size() <= 19 && std::all_of(id.begin(), id.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (numeric) seq = std::stoull(std::string(id));
  std::lock_guard lock(mu_);
  auto it = numeric ? approvals_.find(seq) : approvals_.end();
  if (it == approvals_.end()) {
    return Refuse(core::ErrorKind::kNotFound, "no approval \"" + std::string(id) + "\"");
  }
  return it->second;
}

core::Result<ApprovalView> RunManager::Decide(std::string_view id, bool approve, const Decider& decider,
                                                 std::string_view reason) {
  const std::string_view by = decider.by;
  if (by.empty() || by.size() > kMaxDeciderLength || !IsPrintable(by)) {
    return Refuse(core::ErrorKind::kInvalidArgument,
                  "\"by\" must name who decides: 1 to 200 printable characters");
  }
  if (reason.size() > kMaxReasonLength || !IsPrintable(reason)) {
    return Refuse(core::ErrorKind::kInvalidArgument, "\"reason\" must be at most 1000 printable characters");
  }
  core::Result<ApprovalView> current = GetApproval(id);
  if (!current.ok()) return current;
  auto already = [](const ApprovalView& a) {
    return Refuse(core::ErrorKind::kConflict,
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
    return Refuse(core::ErrorKind::kUnavailable, "the journal cannot record the decision: " + decided.message());
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
