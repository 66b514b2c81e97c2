// The worker pool: runs queued, taken by a worker, advanced, and the
// completions performers report journaled on their own threads.
#include "volent/agent/run_manager.h"

#include "core/crash_point.h"
#include "volent/agent/crash_points.h"
#include "volent/agent/run_manager_internal.h"

namespace volent::agent {

using namespace internal;

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
    if (run.view.status == RunStatus::kFinished || run.view.status == RunStatus::kFailed) {
      // Ended while queued (a failed journal write in a completion callback).
      run.queued = false;
      if (busy_ == 0 && queue_.empty() && in_flight_keys_.empty()) idle_cv_.notify_all();
      continue;
    }
    ++busy_;
    if (run.view.status == RunStatus::kWaitingApproval) run.view.status = RunStatus::kRunning;
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

// The completion is journaled here, on the thread the performer answered
// on, rather than handed to a worker: the effect's result is then on disk as
// soon as it is known (no window where it sits only in memory, and Stop
// needs no step of its own to record it), and the worker that replays the
// run reads it like any completion. The cost is one journal write (an
// fsync) on that thread, which journal writes serialize anyway.
void RunManager::EffectDone(const std::string& run_key, const EffectKey& key, bool tool, nlohmann::json result) {
  if (tool) core::CrashPoint(agent::kNodeCrashEnv, "after-effect");
  auto completed = journal_.CompleteEffect(key, result);
  std::lock_guard lock(mu_);
  in_flight_keys_.erase(key.ToString());
  auto run = runs_.find(run_key);
  if (run != runs_.end()) {
    if (!completed) {
      run->second.view.status = RunStatus::kFailed;
      run->second.view.error = "the journal could not record a step (" + completed.message() +
                               "); the run resumes when the node restarts";
    } else {
      if (!completed->already_done) ++run->second.view.steps_done;
      if (!stopping_) Schedule(run_key);
    }
  }
  if (busy_ == 0 && queue_.empty() && in_flight_keys_.empty()) idle_cv_.notify_all();
}

}  // namespace volent::agent
