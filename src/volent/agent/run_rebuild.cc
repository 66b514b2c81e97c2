// Rebuilding every run and approval from the journal at start.
#include "volent/agent/run_manager.h"

#include "volent/agent/run_manager_internal.h"

namespace volent::agent {

using namespace internal;

namespace {

constexpr size_t kRebuildPage = 1000;

}  // namespace

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
          fresh.view.status = RunStatus::kRunning;
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
            run->second.view.status = EndedStatus(payload);
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

}  // namespace volent::agent
