#include "volent/store/agent_store.h"

#include <ctime>
#include <utility>

#include "core/rfc3339.h"
#include "volent/store/agent_name.h"

namespace volent::store {
namespace {

using core::Error;
using core::Result;
using core::Status;

// SQLite's page cache per connection, in KiB (negative = KiB in PRAGMA
// cache_size). The view in memory serves every read; the cache only helps
// writes, so it stays small.
constexpr int kCacheKib = 256;

constexpr char kSchema[] =
    "CREATE TABLE IF NOT EXISTS agents ("
    " name TEXT PRIMARY KEY,"
    " generation INTEGER NOT NULL,"
    " applied_at TEXT NOT NULL,"
    " manifest TEXT NOT NULL"
    ") WITHOUT ROWID";

}  // namespace

std::string_view AgentStatusName(AgentStatus status) {
  return status == AgentStatus::kRejected ? "rejected" : "idle";
}

Result<std::unique_ptr<AgentStore>> AgentStore::Open(const std::string& dir, const Recheck& recheck,
                                                     int busy_timeout_ms) {
  std::unique_ptr<AgentStore> store(new AgentStore());
  if (dir.empty()) return store;
  core::sqlite::OpenOptions options;
  options.open_hint = "check that the data folder is writable";
  options.busy_timeout_ms = busy_timeout_ms;
  auto db = core::sqlite::Database::Open(dir + "/agents.db", options);
  if (!db) return db.error();
  store->db_ = std::move(*db);
  const std::string cache = "PRAGMA cache_size=-" + std::to_string(kCacheKib);
  CORE_RETURN_IF_ERROR(store->db_.Exec(cache.c_str()));
  CORE_RETURN_IF_ERROR(store->db_.Exec(kSchema));
  CORE_RETURN_IF_ERROR(store->Load(recheck));
  return store;
}

Status AgentStore::Load(const Recheck& recheck) {
  core::sqlite::Statement stmt = db_.Prepare("SELECT name, generation, applied_at, manifest FROM agents");
  if (!stmt) return db_.Failure("reading the agents");
  std::unique_lock lock(mu_);
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    std::string name = stmt.Text(0);
    // Only this store writes the file; a row it could not have written
    // (edited by hand) is left out rather than served.
    if (!IsValidAgentName(name)) continue;
    Entry entry;
    entry.generation = static_cast<uint64_t>(stmt.Int64(1));
    entry.applied_at = stmt.Text(2);
    entry.manifest_json = stmt.Text(3);
    if (entry.applied_at.size() != 20 ||
        entry.applied_at.find_first_not_of("0123456789-:TZ") != std::string::npos) {
      entry.applied_at = "1970-01-01T00:00:00Z";
    }
    if (recheck && !recheck(name, entry.manifest_json)) entry.status = AgentStatus::kRejected;
    agents_.emplace(std::move(name), std::move(entry));
  }
  if (rc != SQLITE_DONE) return db_.Failure("reading the agents");
  return Status::Ok();
}

Result<ApplyOutcome> AgentStore::Apply(const std::string& name, std::string manifest_json) {
  std::lock_guard writer(write_mu_);
  uint64_t generation = 1;
  {
    std::shared_lock lock(mu_);
    auto it = agents_.find(name);
    if (it != agents_.end()) generation = it->second.generation + 1;
  }
  std::string applied_at = core::Rfc3339Seconds(time(nullptr));
  if (db_.get()) {
    // One statement is one transaction (autocommit): the row is replaced
    // whole or not at all.
    core::sqlite::Statement stmt = db_.Prepare(
        "INSERT OR REPLACE INTO agents (name, generation, applied_at, manifest) VALUES (?1, ?2, ?3, ?4)");
    if (!stmt) return db_.Failure("saving " + name);
    stmt.BindText(1, name);
    stmt.BindInt64(2, static_cast<int64_t>(generation));
    stmt.BindText(3, applied_at);
    stmt.BindText(4, manifest_json);
    if (stmt.Step() != SQLITE_DONE) return db_.Failure("saving " + name);
  }
  ApplyOutcome outcome;
  outcome.created = generation == 1;
  outcome.summary = {name, generation, applied_at, AgentStatus::kIdle};
  manifest_json.shrink_to_fit();
  std::unique_lock lock(mu_);
  Entry& entry = agents_[name];
  entry = Entry{std::move(manifest_json), std::move(applied_at), generation, AgentStatus::kIdle};
  return outcome;
}

Result<bool> AgentStore::Delete(const std::string& name) {
  std::lock_guard writer(write_mu_);
  {
    std::shared_lock lock(mu_);
    if (agents_.find(name) == agents_.end()) return false;
  }
  if (db_.get()) {
    core::sqlite::Statement stmt = db_.Prepare("DELETE FROM agents WHERE name = ?1");
    if (!stmt) return db_.Failure("deleting " + name);
    stmt.BindText(1, name);
    if (stmt.Step() != SQLITE_DONE) return db_.Failure("deleting " + name);
  }
  std::unique_lock lock(mu_);
  agents_.erase(name);
  return true;
}

std::optional<AgentRecord> AgentStore::Get(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = agents_.find(name);
  if (it == agents_.end()) return std::nullopt;
  const Entry& e = it->second;
  return AgentRecord{{it->first, e.generation, e.applied_at, e.status}, e.manifest_json};
}

AgentPage AgentStore::List(std::string_view after, size_t limit) const {
  AgentPage page;
  std::shared_lock lock(mu_);
  auto it = after.empty() ? agents_.begin() : agents_.upper_bound(after);
  for (; it != agents_.end() && page.agents.size() < limit; ++it) {
    const Entry& e = it->second;
    page.agents.push_back({it->first, e.generation, e.applied_at, e.status});
  }
  if (it != agents_.end() && !page.agents.empty()) page.next = page.agents.back().name;
  return page;
}

size_t AgentStore::size() const {
  std::shared_lock lock(mu_);
  return agents_.size();
}

}  // namespace volent::store
