#include "ampoule/gate/decision_log.h"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>

#include <sodium.h>

#include "ampoule/gate/action.h"
#include "ampoule/gate/crash_point.h"
#include "ampoule/receipt/json_strict.h"
#include "ampoule/receipt/sodium_init.h"
#include "core/hex.h"

namespace ampoule::gate {
namespace {

// Version 1: the decisions table. Version 2 adds the meta table and the
// log's identity; a version 1 log is migrated on open by adding them (its
// decisions are kept as they are).
constexpr int kSchemaVersion = 2;
// How long a submission waits for another process's transaction. Each
// transaction is short (no I/O but the log's own), so this only runs out
// when something holds the file locked.
constexpr int kBusyTimeoutMs = 60'000;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS decisions (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  decided_at      TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  kind            TEXT NOT NULL,
  decision        TEXT NOT NULL CHECK (decision IN ('send', 'hold', 'escalate', 'refuse')),
  reasons         TEXT NOT NULL,
  receipt_sha256  TEXT NOT NULL,
  fields          TEXT NOT NULL,
  outbox          TEXT,
  delivery        TEXT CHECK (delivery IN ('pending', 'delivered')),
  outbox_file     TEXT,
  CHECK ((decision = 'send') = (delivery IS NOT NULL))
);
CREATE UNIQUE INDEX IF NOT EXISTS decisions_one_send_per_key
  ON decisions (idempotency_key) WHERE decision = 'send';
CREATE INDEX IF NOT EXISTS decisions_by_key ON decisions (idempotency_key);
CREATE TABLE IF NOT EXISTS meta (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
)sql";

// 16 random bytes, in hex: what tells this log from every other one, even
// one at the same path (a deleted and re-created gate.db).
std::string NewLogId() {
  receipt::EnsureSodium();
  unsigned char bytes[kLogIdBytes];
  randombytes_buf(bytes, sizeof bytes);
  return core::HexEncode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

constexpr const char* kColumns =
    "id, decided_at, idempotency_key, kind, decision, reasons, receipt_sha256, fields, "
    "outbox, delivery, outbox_file";

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }
  void Bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  void BindNullable(int i, const std::string& text) {
    if (text.empty()) sqlite3_bind_null(stmt_, i); else Bind(i, text);
  }
  std::string Text(int column) {
    const unsigned char* t = sqlite3_column_text(stmt_, column);
    return t ? std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(stmt_, column)) : "";
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

Error SqlError(sqlite3* db, const std::string& path, const std::string& doing) {
  return Error{"decision log " + path + ": " + doing + ": " + sqlite3_errmsg(db)};
}

// The hook SQLite calls as a transaction commits, before it is durable.
int CommitHook(void*) {
  CrashPoint("in-commit");
  return 0;
}

// Rolls back an open transaction unless Commit() was called.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  int Commit() {
    done_ = true;
    return sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  }

 private:
  sqlite3* db_;
  bool done_ = false;
};

nlohmann::json ReasonsJson(const std::vector<std::string>& reasons) {
  nlohmann::json array = nlohmann::json::array();
  for (const std::string& r : reasons) array.push_back(r);
  return array;
}

}  // namespace

Result<std::unique_ptr<DecisionLog>> DecisionLog::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    Error e{"cannot open the decision log " + path + ": " +
            (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) + " (does its folder exist?)"};
    sqlite3_close(db);
    return e;
  }
  std::unique_ptr<DecisionLog> log(new DecisionLog(db, path));
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  // Switching a new file to WAL needs a moment alone with it; when many
  // processes open a fresh log at once, some are told "busy" without the
  // busy handler being consulted, so retry for as long as it would wait.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    Statement mode(db, "PRAGMA journal_mode = WAL");
    rc = mode.ok() ? sqlite3_step(mode.get()) : SQLITE_ERROR;
    if (rc == SQLITE_ROW) {
      if (mode.Text(0) != "wal") return Error{"decision log " + path + ": cannot use write-ahead logging (journal mode " + mode.Text(0) + ")"};
      break;
    }
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || std::chrono::steady_clock::now() > give_up) {
      return SqlError(db, path, "setting write-ahead logging");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (Status s = log->Exec("PRAGMA synchronous = FULL"); !s.ok()) return s.error();
  if (Status s = log->Exec("BEGIN IMMEDIATE"); !s.ok()) return s.error();
  Transaction txn(db);
  Statement version(db, "PRAGMA user_version");
  if (!version.ok() || sqlite3_step(version.get()) != SQLITE_ROW) return SqlError(db, path, "reading the schema version");
  const int found = sqlite3_column_int(version.get(), 0);
  sqlite3_reset(version.get());
  if (found > kSchemaVersion) {
    return Error{"decision log " + path + " has schema version " + std::to_string(found) +
                 ", newer than this ampoule understands (" + std::to_string(kSchemaVersion) + ")"};
  }
  if (found < kSchemaVersion) {
    // A new log, or one from version 1: the statements only add what is
    // missing. Inside BEGIN IMMEDIATE, so of many processes opening a new
    // file at once exactly one gives it its identity.
    if (Status s = log->Exec(kSchema); !s.ok()) return s.error();
    Statement id(db, "INSERT OR IGNORE INTO meta (name, value) VALUES ('log_id', ?1)");
    if (!id.ok()) return SqlError(db, path, "giving the log its identity");
    id.Bind(1, NewLogId());
    if (sqlite3_step(id.get()) != SQLITE_DONE) return SqlError(db, path, "giving the log its identity");
    if (Status s = log->Exec("PRAGMA user_version = 2"); !s.ok()) return s.error();
  }
  Statement id(db, "SELECT value FROM meta WHERE name = 'log_id'");
  if (!id.ok() || sqlite3_step(id.get()) != SQLITE_ROW) return SqlError(db, path, "reading the log's identity");
  log->id_ = id.Text(0);
  sqlite3_reset(id.get());
  // The outbox trusts this value to tell logs apart (outbox.h): one edited
  // into something else would let two logs pass for one.
  if (!core::IsLowerHex(log->id_, kLogIdBytes)) {
    return Error{"decision log " + path + ": its identity (table meta, log_id) is '" + log->id_ +
                 "', not 32 lowercase hex digits; the file was altered outside ampoule"};
  }
  if (txn.Commit() != SQLITE_OK) return SqlError(db, path, "creating the tables");
  return log;
}

DecisionLog::~DecisionLog() { sqlite3_close(db_); }

Status DecisionLog::Exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    Error e{"decision log " + path_ + ": " + (message ? message : sqlite3_errmsg(db_))};
    sqlite3_free(message);
    return e;
  }
  return Status::Ok();
}

Result<DecisionRow> DecisionLog::Record(const Submission& submission,
                                        const std::function<GateVerdict(bool already_sent)>& decide) {
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s.error();
  Transaction txn(db_);
  Statement sent(db_, "SELECT 1 FROM decisions WHERE idempotency_key = ?1 AND decision = 'send'");
  if (!sent.ok()) return SqlError(db_, path_, "reading earlier sends");
  sent.Bind(1, submission.idempotency_key);
  const int step = sqlite3_step(sent.get());
  if (step != SQLITE_ROW && step != SQLITE_DONE) return SqlError(db_, path_, "reading earlier sends");
  sqlite3_reset(sent.get());

  const GateVerdict verdict = decide(step == SQLITE_ROW);
  DecisionRow row;
  row.decided_at = FormatUtcTimestamp(time(nullptr));
  row.idempotency_key = submission.idempotency_key;
  row.kind = submission.kind;
  row.decision = std::string(DecisionName(verdict.decision));
  row.reasons = verdict.reasons;
  row.receipt_sha256 = submission.receipt_sha256;
  row.fields = submission.fields;
  if (verdict.decision == Decision::kSend) {
    row.outbox = submission.outbox;
    row.delivery = "pending";
  }
  Statement insert(db_,
                   "INSERT INTO decisions (decided_at, idempotency_key, kind, decision, reasons, "
                   "receipt_sha256, fields, outbox, delivery) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!insert.ok()) return SqlError(db_, path_, "recording the decision");
  insert.Bind(1, row.decided_at);
  insert.Bind(2, row.idempotency_key);
  insert.Bind(3, row.kind);
  insert.Bind(4, row.decision);
  insert.Bind(5, receipt::DumpJson(ReasonsJson(row.reasons)));
  insert.Bind(6, row.receipt_sha256);
  insert.Bind(7, receipt::DumpJson(row.fields));
  insert.BindNullable(8, row.outbox);
  insert.BindNullable(9, row.delivery);
  if (sqlite3_step(insert.get()) != SQLITE_DONE) return SqlError(db_, path_, "recording the decision");
  row.id = sqlite3_last_insert_rowid(db_);

  sqlite3_commit_hook(db_, CommitHook, nullptr);
  const int committed = txn.Commit();
  sqlite3_commit_hook(db_, nullptr, nullptr);
  if (committed != SQLITE_OK) return SqlError(db_, path_, "committing the decision");
  return row;
}

Status DecisionLog::MarkDelivered(int64_t id, const std::string& outbox_file) {
  Statement update(db_,
                   "UPDATE decisions SET delivery = 'delivered', outbox_file = ?2 "
                   "WHERE id = ?1 AND decision = 'send'");
  if (!update.ok()) return SqlError(db_, path_, "marking a send delivered");
  sqlite3_bind_int64(update.get(), 1, id);
  update.Bind(2, outbox_file);
  if (sqlite3_step(update.get()) != SQLITE_DONE) return SqlError(db_, path_, "marking a send delivered");
  return Status::Ok();
}

Result<std::vector<DecisionRow>> DecisionLog::PendingSends() {
  return Query("WHERE decision = 'send' AND delivery = 'pending'", std::nullopt);
}

Result<std::vector<DecisionRow>> DecisionLog::List(const std::optional<std::string>& key) {
  return Query(key ? "WHERE idempotency_key = ?1" : "", key);
}

Result<std::vector<DecisionRow>> DecisionLog::Query(const char* where,
                                                    const std::optional<std::string>& key) {
  const std::string sql = std::string("SELECT ") + kColumns + " FROM decisions " + where + " ORDER BY id";
  Statement select(db_, sql.c_str());
  if (!select.ok()) return SqlError(db_, path_, "reading decisions");
  if (key) select.Bind(1, *key);
  std::vector<DecisionRow> rows;
  int rc;
  while ((rc = sqlite3_step(select.get())) == SQLITE_ROW) {
    DecisionRow row;
    row.id = sqlite3_column_int64(select.get(), 0);
    row.decided_at = select.Text(1);
    row.idempotency_key = select.Text(2);
    row.kind = select.Text(3);
    row.decision = select.Text(4);
    // Written by Record() as JSON; a row edited by hand into something else
    // is shown as it is rather than dropped.
    Result<nlohmann::json> reasons = receipt::ParseJsonStrict(select.Text(5), "reasons");
    if (reasons.ok() && reasons->is_array()) {
      for (const nlohmann::json& r : *reasons) row.reasons.push_back(r.is_string() ? r.get<std::string>() : r.dump());
    } else {
      row.reasons.push_back(select.Text(5));
    }
    row.receipt_sha256 = select.Text(6);
    Result<nlohmann::json> fields = receipt::ParseJsonStrict(select.Text(7), "fields");
    row.fields = fields.ok() ? *fields : nlohmann::json(select.Text(7));
    row.outbox = select.Text(8);
    row.delivery = select.Text(9);
    row.outbox_file = select.Text(10);
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return SqlError(db_, path_, "reading decisions");
  return rows;
}

}  // namespace ampoule::gate
