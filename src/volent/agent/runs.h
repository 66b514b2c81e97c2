// What the control API sees of agent runs and approvals (docs/agent-runs.md):
// an interface, so the API can be tested without the agent loop, and the
// loop (run_manager.h) knows nothing of HTTP.
//
// A run is one execution of an agent's loop: model call, tool calls, model
// call, ... until the model answers without a tool call. Everything a run
// does is in the journal; these views are read from it.
//
// Thread-safe: every method may be called from many threads at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace volent::agent {

// Where a run stands. Journaled and shown by the API by its name
// (RunStatusName): "running", "waiting-approval", "finished" (the model gave
// its answer) or "failed" (the run cannot go on: see `error`).
enum class RunStatus { kRunning, kWaitingApproval, kFinished, kFailed };
inline constexpr RunStatus kAllRunStatuses[] = {RunStatus::kRunning, RunStatus::kWaitingApproval,
                                                RunStatus::kFinished, RunStatus::kFailed};

// The one mapping between a status and its name, both ways.
std::string_view RunStatusName(RunStatus status);
// The status named `name` exactly; nullopt for any other text.
std::optional<RunStatus> RunStatusFromName(std::string_view name);

struct RunView {
  std::string agent;
  std::string id;
  RunStatus status = RunStatus::kRunning;
  nlohmann::json input;          // as given when the run was started
  nlohmann::json output;         // null until finished: the model's final answer
  std::string error;             // when failed
  uint64_t steps_done = 0;       // steps with a journaled completion (model and tool calls)
  int64_t started_ms = 0;        // Unix time in milliseconds
  int64_t finished_ms = 0;       // 0 until finished or failed
};

// A tool call waiting for (or given) a person's decision.
struct ApprovalView {
  std::string id;                // stable identifier (decimal)
  std::string agent;
  std::string run;
  uint64_t step = 0;
  std::string tool;
  nlohmann::json arguments;
  int64_t requested_ms = 0;
  std::string decision;          // "" while pending, else "approved" or "denied"
  std::string by;                // who decided, in one line (the authenticated identity)
  std::string reason;            // optional words of the decider
  int64_t decided_ms = 0;
  // "sha256:" + the hash of the approval-requested journal entry: what a
  // signed decision signs (control/approval_signature.h).
  std::string call_digest;
  nlohmann::json identity;       // who decided, as authenticated (Principal::ToJson); null before
  nlohmann::json signature;      // the approver's own signature, or null
};

// Who decides an approval, as the control API authenticated them; all of it
// is journaled with the decision.
struct Decider {
  Decider() = default;
  Decider(const char* name) : by(name) {}  // NOLINT: tests name a decider by a string
  Decider(std::string_view name) : by(name) {}  // NOLINT
  Decider(const std::string& name) : by(name) {}  // NOLINT
  std::string by;             // one line: Principal::Describe()
  nlohmann::json identity;    // Principal::ToJson(); null: none
  nlohmann::json signature;   // a checked signature over the call digest; null: none
};

struct StartedRun {
  bool created = false;  // false: a run with this id existed; it is returned as it is
  RunView run;
};

// A refused call is an error whose message is for a person (no internals)
// and whose kind the control API maps to an HTTP status:
//   kInvalidArgument  a malformed argument (400): the message says which
//   kNotFound         no such agent, run or approval (404)
//   kConflict         the state forbids it: approval already decided, agent rejected, ... (409)
//   kUnavailable      the node cannot do it now: journal error, stopping (503)
class Runs {
 public:
  virtual ~Runs() = default;

  // Starts a run of `agent` with `input` (any JSON; null is {}). `run_id` "" picks a
  // new id; a given id (1 to 64 of [A-Za-z0-9_-]) makes the call
  // idempotent: the same id again returns the existing run (created false).
  // The run is journaled before this returns.
  virtual core::Result<StartedRun> StartRun(std::string_view agent, std::string_view run_id,
                                               const nlohmann::json& input) = 0;
  virtual core::Result<RunView> GetRun(std::string_view agent, std::string_view run_id) = 0;
  // Newest first; `agent` "" for every agent; at most `limit`.
  virtual std::vector<RunView> ListRuns(std::string_view agent, size_t limit) = 0;
  // Every agent's run with this id (ids are unique per agent, not per node),
  // by agent name.
  virtual std::vector<RunView> FindRuns(std::string_view run_id) = 0;

  // Pending approvals only, or all, oldest first.
  virtual std::vector<ApprovalView> ListApprovals(bool pending_only) = 0;
  virtual core::Result<ApprovalView> GetApproval(std::string_view id) = 0;
  // Records the decision (journaled with who and when) and lets the run go
  // on: an approved call is performed, a denied one is reported to the
  // model as denied. `decider.by` is required (1 to 200 printable characters).
  virtual core::Result<ApprovalView> Decide(std::string_view id, bool approve, const Decider& decider,
                                               std::string_view reason) = 0;
};

}  // namespace volent::agent
