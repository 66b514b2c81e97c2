// The node's applied agents: an in-memory view backed by SQLite in the data
// folder (agents.db, WAL, synchronous=FULL). docs/control-api.md,
// docs/decisions/0016-control-api.md.
//
// Each agent is kept as its compact canonical JSON manifest (one string) and
// a small summary, never as a parsed tree, so 10,000 agents cost a few MB.
// Apply, replace and delete are one SQLite transaction each; the in-memory
// view changes only after the commit succeeded, so a failed write leaves
// both the disk and the view as they were.
//
// Thread-safe: readers share a lock, writers are serialized (one writer at a
// time holds the database; readers are not blocked while it syncs).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/sqlite.h"

namespace volent::store {

enum class AgentStatus { kIdle, kRejected };
std::string_view AgentStatusName(AgentStatus status);

struct AgentSummary {
  std::string name;
  uint64_t generation = 0;  // 1 at creation, +1 per replacement
  std::string applied_at;   // RFC 3339 UTC, e.g. "2026-11-30T02:01:07Z"
  AgentStatus status = AgentStatus::kIdle;
};

struct AgentRecord {
  AgentSummary summary;
  std::string manifest_json;  // compact canonical JSON, as stored
};

struct ApplyOutcome {
  AgentSummary summary;
  bool created = false;  // false: an existing agent was replaced
};

struct AgentPage {
  std::vector<AgentSummary> agents;  // ascending by name
  std::optional<std::string> next;   // the `after` of the next page; none at the end
};

class AgentStore {
 public:
  // Decides, at open, whether a stored manifest still passes the node's
  // current checks; false marks the agent rejected (it stays stored).
  using Recheck = std::function<bool(std::string_view name, std::string_view manifest_json)>;

  // Opens (creating if missing) `dir`/agents.db and loads every agent
  // (rows with an invalid name, which Apply never writes, are skipped).
  // `dir` must exist. An empty `dir` keeps everything in memory only (tests,
  // fuzzing). Errors name the file and what to do. A write waits up to
  // `busy_timeout_ms` for another connection's lock, then fails.
  static core::Result<std::unique_ptr<AgentStore>> Open(const std::string& dir,
                                                           const Recheck& recheck = nullptr,
                                                           int busy_timeout_ms = 30'000);
  ~AgentStore() = default;
  AgentStore(const AgentStore&) = delete;
  AgentStore& operator=(const AgentStore&) = delete;

  // Creates or replaces the agent `name` with `manifest_json` (already
  // checked; stored verbatim). REQUIRES: IsValidAgentName(name). On error
  // nothing changed.
  core::Result<ApplyOutcome> Apply(const std::string& name, std::string manifest_json);
  // Removes the agent. Ok(false) if there was none.
  core::Result<bool> Delete(const std::string& name);

  std::optional<AgentRecord> Get(std::string_view name) const;
  // Up to `limit` agents whose names sort after `after` ("" from the start).
  AgentPage List(std::string_view after, size_t limit) const;
  size_t size() const;

 private:
  struct Entry {
    std::string manifest_json;
    std::string applied_at;
    uint64_t generation = 0;
    AgentStatus status = AgentStatus::kIdle;
  };
  AgentStore() = default;
  core::Status Load(const Recheck& recheck);

  std::mutex write_mu_;  // serializes writers; guards db_ use
  core::sqlite::Database db_;  // not open for a store in memory only
  mutable std::shared_mutex mu_;  // guards agents_
  std::map<std::string, Entry, std::less<>> agents_;
};

}  // namespace volent::store
