#include "volent/node/agent_store.h"

#include <sqlite3.h>

#include <ctime>
#include <utility>

#include "volent/node/agent_name.h"

namespace volent::node {
namespace {

using ampoule::Error;
using ampoule::Result;
using ampoule::Status;

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

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (db) sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }
  explicit operator bool() const { return stmt_ != nullptr; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

std::string ColumnText(sqlite3_stmt* stmt, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
  return text ? std::string(text, sqlite3_column_bytes(stmt, column)) : std::string();
}

}  // namespace

std::string_view AgentStatusName(AgentStatus status) {
  return status == AgentStatus::kRejected ? "rejected" : "idle";
}

std::string NowRfc3339() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

Result<std::unique_ptr<AgentStore>> AgentStore::Open(const std::string& dir, const Recheck& recheck) {
  std::unique_ptr<AgentStore> store(new AgentStore());
  if (dir.empty()) return store;
  const std::string path = dir + "/agents.db";
  int rc = sqlite3_open_v2(path.c_str(), &store->db_,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    return Error{"cannot open " + path + ": " + sqlite3_errstr(rc) +
                 " (check that the data folder is writable)"};
  }
  AMP_RETURN_IF_ERROR(store->Exec("PRAGMA journal_mode=WAL"));
  AMP_RETURN_IF_ERROR(store->Exec("PRAGMA synchronous=FULL"));
  const std::string cache = "PRAGMA cache_size=-" + std::to_string(kCacheKib);
  AMP_RETURN_IF_ERROR(store->Exec(cache.c_str()));
  AMP_RETURN_IF_ERROR(store->Exec(kSchema));
  AMP_RETURN_IF_ERROR(store->Load(recheck));
  return store;
}

AgentStore::~AgentStore() {
  if (db_) sqlite3_close_v2(db_);
}

Status AgentStore::Exec(const char* sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string text = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return Error{"agents.db: " + text};
}

Status AgentStore::Load(const Recheck& recheck) {
  Statement stmt(db_, "SELECT name, generation, applied_at, manifest FROM agents");
  if (!stmt) return Error{std::string("agents.db: ") + sqlite3_errmsg(db_)};
  std::unique_lock lock(mu_);
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    std::string name = ColumnText(stmt.get(), 0);
    // Only this store writes the file; a row it could not have written
    // (edited by hand) is left out rather than served.
    if (!IsValidAgentName(name)) continue;
    Entry entry;
    entry.generation = static_cast<uint64_t>(sqlite3_column_int64(stmt.get(), 1));
    entry.applied_at = ColumnText(stmt.get(), 2);
    entry.manifest_json = ColumnText(stmt.get(), 3);
    if (entry.applied_at.size() != 20 ||
        entry.applied_at.find_first_not_of("0123456789-:TZ") != std::string::npos) {
      entry.applied_at = "1970-01-01T00:00:00Z";
    }
    if (recheck && !recheck(name, entry.manifest_json)) entry.status = AgentStatus::kRejected;
    agents_.emplace(std::move(name), std::move(entry));
  }
  if (rc != SQLITE_DONE) return Error{std::string("agents.db: ") + sqlite3_errmsg(db_)};
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
  std::string applied_at = NowRfc3339();
  if (db_) {
    // One statement is one transaction (autocommit): the row is replaced
    // whole or not at all.
    Statement stmt(db_,
                   "INSERT OR REPLACE INTO agents (name, generation, applied_at, manifest) "
                   "VALUES (?1, ?2, ?3, ?4)");
    if (!stmt) return Error{std::string("agents.db: ") + sqlite3_errmsg(db_)};
    sqlite3_bind_text(stmt.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    sqlite3_bind_int64(stmt.get(), 2, static_cast<sqlite3_int64>(generation));
    sqlite3_bind_text(stmt.get(), 3, applied_at.data(), static_cast<int>(applied_at.size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(stmt.get(), 4, manifest_json.data(), static_cast<int>(manifest_json.size()),
                      SQLITE_STATIC);
    if (sqlite3_step(stmt.get()) != SQLITE_DONE) {
      return Error{std::string("agents.db: ") + sqlite3_errmsg(db_)};
    }
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
  if (db_) {
    Statement stmt(db_, "DELETE FROM agents WHERE name = ?1");
    if (!stmt) return Error{std::string("agents.db: ") + sqlite3_errmsg(db_)};
    sqlite3_bind_text(stmt.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    if (sqlite3_step(stmt.get()) != SQLITE_DONE) {
      return Error{std::string("agents.db: ") + sqlite3_errmsg(db_)};
    }
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

}  // namespace volent::node
