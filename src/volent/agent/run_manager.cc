// The run manager as an owner: it starts (rebuilding its state from the journal,
// then the workers), stops and waits. The helpers its files share over journal
// entries are here too (run_manager_internal.h).
#include "volent/agent/run_manager.h"

#include <algorithm>

#include "volent/agent/run_manager_internal.h"

namespace volent::agent {

using namespace internal;

namespace internal {

nlohmann::json Payload(const journal::Entry& entry) {
  auto value = nlohmann::json::parse(entry.payload, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? nlohmann::json() : value;
}

std::string StringField(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

RunStatus EndedStatus(const nlohmann::json& payload) {
  return RunStatusFromName(StringField(payload, "status")) == RunStatus::kFinished ? RunStatus::kFinished
                                                                                   : RunStatus::kFailed;
}

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

core::Error Refuse(core::ErrorKind kind, std::string message) { return {std::move(message), kind}; }

}  // namespace internal

RunManager::RunManager(journal::Journal& journal, store::AgentStore& store, ToolPerformer tools, ModelPerformer model)
    : journal_(journal), store_(store), tools_(std::move(tools)), model_(std::move(model)) {}

RunManager::~RunManager() { Stop(); }

std::string RunManager::RunKey(std::string_view agent, std::string_view run_id) {
  return std::string(agent) + "/" + std::string(run_id);
}

Result<std::unique_ptr<RunManager>> RunManager::Start(journal::Journal& journal, store::AgentStore& store,
                                                      ToolPerformer tools, ModelPerformer model,
                                                      RunManagerOptions options) {
  std::unique_ptr<RunManager> manager(new RunManager(journal, store, std::move(tools), std::move(model)));
  CORE_RETURN_IF_ERROR(manager->Rebuild());
  RunManager* self = manager.get();
  {
    std::lock_guard lock(self->mu_);
    for (auto& [key, run] : self->runs_) {
      if (run.view.status != RunStatus::kRunning) continue;
      run.resumed = true;
      self->Schedule(key);
    }
  }
  for (size_t i = 0; i < std::max<size_t>(options.threads, 1); ++i) {
    self->workers_.emplace_back([self] { self->Work(); });
  }
  return manager;
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

}  // namespace volent::agent
