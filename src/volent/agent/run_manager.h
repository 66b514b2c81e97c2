// The agent loop of a node: runs agents, journals every step, pauses for
// approvals, and resumes after a restart (docs/agent-runs.md,
// docs/models.md, docs/journal.md).
//
// A run is a deterministic sequence of steps numbered from 1: a model call,
// then the tool calls it asked for, then a model call with their results,
// ... until the model answers without a tool call. Every step that leaves
// the process (model calls, tool calls) is journaled before it happens
// (intent, key AGENT/RUN/STEP) and after (completion, with its result).
// Advancing a run always replays it from step 1: a step done in the journal
// is not performed again, its recorded result is used; a step with an
// intent but no completion is performed again with the same key and the
// recorded request. So a restart, an approval and a first run all take the
// same path.
//
// Steps are asynchronous: a worker journals the intent, starts the effect
// (ModelPerformer, ToolPerformer) with a completion callback and lets go of
// the run, which is parked like a run waiting for an approval and holds no
// thread. The callback (on whatever thread the performer answers on: a gate
// I/O thread, the delays' thread, or the worker itself) journals the
// completion and schedules the run again; its replay then reads the
// completion. Thousands of calls can thus be in flight on a few workers.
//
// Thread-safe. Runs advance on a fixed pool of worker threads; one run is
// never advanced by two threads at once.
//
// One file per job: run_manager.cc (the owner: start, stop, wait),
// run_rebuild.cc (state rebuilt from the journal), run_workers.cc (the
// pool), run_steps.cc (step replay), run_queries.cc (runs and approvals for
// the control API).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "volent/agent/agent_spec.h"
#include "volent/agent/model_step.h"
#include "volent/agent/runs.h"
#include "volent/agent/tool_call.h"
#include "volent/journal/journal.h"
#include "volent/store/agent_store.h"

namespace volent::agent {

struct RunManagerOptions {
  size_t threads = 8;  // runs advanced at once
};

class RunManager final : public Runs {
 public:
  // Rebuilds the runs and approvals from the journal and resumes every
  // unfinished run in the background. Tool calls are started with `tools`,
  // model calls with `model`. REQUIRES: journal, store and the performers'
  // referents outlive the manager.
  static core::Result<std::unique_ptr<RunManager>> Start(journal::Journal& journal, store::AgentStore& store,
                                                            ToolPerformer tools, ModelPerformer model,
                                                            RunManagerOptions options = {});
  ~RunManager() override;  // Stop()
  RunManager(const RunManager&) = delete;
  RunManager& operator=(const RunManager&) = delete;

  // Takes no more work, lets the workers end the replays under way, then
  // waits for the effects in flight: each one's completion is journaled (a
  // call ends within its time limit and retries). Their runs are not
  // advanced further; unfinished runs stay in the journal and resume at the
  // next Start. (A node that dies instead leaves those effects as intents,
  // re-issued with the same key at the next Start.)
  void Stop();
  // Waits until no run can advance and no effect is in flight (each run is
  // finished, failed or waiting for an approval). For tests and orderly
  // shutdown.
  void WaitIdle();

  core::Result<StartedRun> StartRun(std::string_view agent, std::string_view run_id,
                                       const nlohmann::json& input) override;
  core::Result<RunView> GetRun(std::string_view agent, std::string_view run_id) override;
  std::vector<RunView> ListRuns(std::string_view agent, size_t limit) override;
  std::vector<RunView> FindRuns(std::string_view run_id) override;
  std::vector<ApprovalView> ListApprovals(bool pending_only) override;
  core::Result<ApprovalView> GetApproval(std::string_view id) override;
  core::Result<ApprovalView> Decide(std::string_view id, bool approve, const Decider& decider,
                                       std::string_view reason) override;

 private:
  struct Run {
    RunView view;
    AgentSpec spec;
    bool resumed = false;   // found unfinished at Start, until its first advance ends: its replayed steps are a "replay"
    bool queued = false;    // in queue_ or being advanced
    bool again = false;     // asked to advance while being advanced
  };
  enum class Progress { kFinished, kWaiting, kParked, kStopped, kFailed };
  // A step's result, or parked: its effect is in flight and the run is
  // scheduled again when the completion is journaled.
  struct StepState {
    bool parked = false;
    nlohmann::json result;
  };
  // Starts the effect of a step with the request to perform (the one
  // recorded first) and its key; `done` journals the completion.
  using Starter = std::function<void(const nlohmann::json& request, const std::string& key, StepDone done)>;

  RunManager(journal::Journal& journal, store::AgentStore& store, ToolPerformer tools, ModelPerformer model);
  core::Status Rebuild();
  void Schedule(const std::string& run_key);  // REQUIRES: mu_ held
  void Work();
  Progress Advance(const std::string& run_key, Run run);
  // One journaled step: its result from the journal if done; else the
  // effect is started (given the request recorded first) and the step is
  // parked. `tool` null: a model call.
  core::Result<StepState> Step(const std::string& run_key, const Run& run, uint64_t step,
                                    const nlohmann::json& request, const ToolDef* tool, const Starter& start);
  // The completion callback of a step started by Step.
  void EffectDone(const std::string& run_key, const journal::EffectKey& key, bool tool, nlohmann::json result);
  // Journals run-finished ("finished" with `output`, or "failed" with
  // `error`) and records it in the run's view.
  Progress Finish(const std::string& run_key, const Run& run, bool ok, const nlohmann::json& output,
                  const std::string& error);
  // The journaled decision on a tool call that needs approval, or null when
  // there is none yet (the request is then journaled and the run waits).
  core::Result<nlohmann::json> Approval(const std::string& run_key, const Run& run, uint64_t step,
                                           const ToolDef& tool, const nlohmann::json& arguments);
  void Record(const std::string& run_key, const std::function<void(Run&)>& change);
  static std::string RunKey(std::string_view agent, std::string_view run_id);

  journal::Journal& journal_;
  store::AgentStore& store_;
  ToolPerformer tools_;
  ModelPerformer model_;

  std::mutex mu_;  // guards everything below
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::map<std::string, Run> runs_;                 // by "AGENT/RUN"
  std::map<uint64_t, ApprovalView> approvals_;      // by id (the request's journal seq)
  std::map<std::string, uint64_t> approval_by_key_; // effect key -> id
  std::deque<std::string> queue_;
  std::set<std::string> in_flight_keys_;            // effect keys started and not yet completed
  size_t busy_ = 0;                                 // workers advancing a run
  std::atomic<bool> stopping_{false};  // written under mu_; read between steps without it
  std::vector<std::thread> workers_;
};

}  // namespace volent::agent
