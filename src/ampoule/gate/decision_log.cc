#include "ampoule/gate/decision_log.h"

#include <unistd.h>

#include <ctime>

#include <sodium.h>

#include "ampoule/gate/action.h"
#include "ampoule/gate/crash_points.h"
#include "core/crash_point.h"
#include "core/hex.h"
#include "core/json.h"
#include "core/json_strict.h"
#include "core/rfc3339.h"
#include "core/sodium_init.h"

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
  core::EnsureSodium();
  unsigned char bytes[kLogIdBytes];
  randombytes_buf(bytes, sizeof bytes);
  return core::HexEncode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

constexpr const char* kColumns =
    "id, decided_at, idempotency_key, kind, decision, reasons, receipt_sha256, fields, "
    "outbox, delivery, outbox_file";

// The hook SQLite calls as a transaction commits, before it is durable.
int CommitHook(void*) {
  core::CrashPoint(kGateCrashEnv, "in-commit");
  return 0;
}

nlohmann::json ReasonsJson(const std::vector<std::string>& reasons) {
  nlohmann::json array = nlohmann::json::array();
  for (const std::string& r : reasons) array.push_back(r);
  return array;
}

}  // namespace

core::Result<std::unique_ptr<DecisionLog>> DecisionLog::Open(const std::string& path) {
  core::sqlite::OpenOptions options;
  options.busy_timeout_ms = kBusyTimeoutMs;
  options.name = "decision log " + path;
  options.open_hint = "does its folder exist?";
  core::Result<core::sqlite::Database> db = core::sqlite::Database::Open(path, options);
  if (!db) return db.error();
  std::unique_ptr<DecisionLog> log(new DecisionLog(std::move(*db), path));
  core::sqlite::Database& d = log->db_;
  core::Result<core::sqlite::Transaction> txn = d.Begin(core::sqlite::Database::Lock::kImmediate);
  if (!txn) return txn.error();
  core::sqlite::Statement version = d.Prepare("PRAGMA user_version");
  if (!version || version.Step() != SQLITE_ROW) return d.Failure("reading the schema version");
  const int found = static_cast<int>(version.Int64(0));
  version.Reset();
  if (found > kSchemaVersion) {
    return core::Error{"decision log " + path + " has schema version " + std::to_string(found) +
                 ", newer than this ampoule understands (" + std::to_string(kSchemaVersion) + ")"};
  }
  if (found < kSchemaVersion) {
    // A new log, or one from version 1: the statements only add what is
    // missing. Inside BEGIN IMMEDIATE, so of many processes opening a new
    // file at once exactly one gives it its identity.
    if (core::Status s = d.Exec(kSchema); !s.ok()) return s.error();
    core::sqlite::Statement id = d.Prepare("INSERT OR IGNORE INTO meta (name, value) VALUES ('log_id', ?1)");
    if (!id) return d.Failure("giving the log its identity");
    id.BindText(1, NewLogId());
    if (id.Step() != SQLITE_DONE) return d.Failure("giving the log its identity");
    if (core::Status s = d.Exec("PRAGMA user_version = 2"); !s.ok()) return s.error();
  }
  core::sqlite::Statement id = d.Prepare("SELECT value FROM meta WHERE name = 'log_id'");
  if (!id || id.Step() != SQLITE_ROW) return d.Failure("reading the log's identity");
  log->id_ = id.Text(0);
  id.Reset();
  // The outbox trusts this value to tell logs apart (outbox.h): one edited
  // into something else would let two logs pass for one.
  if (!core::IsLowerHex(log->id_, kLogIdBytes)) {
    return core::Error{"decision log " + path + ": its identity (table meta, log_id) is '" + log->id_ +
                 "', not 32 lowercase hex digits; the file was altered outside ampoule"};
  }
  if (core::Status s = txn->Commit(); !s.ok()) return s.error();
  return log;
}

DecisionLog::~DecisionLog() = default;

core::Result<DecisionRow> DecisionLog::Record(const Submission& submission,
                                        const std::function<GateVerdict(bool already_sent)>& decide) {
  core::Result<core::sqlite::Transaction> txn = db_.Begin(core::sqlite::Database::Lock::kImmediate);
  if (!txn) return txn.error();
  core::sqlite::Statement sent = db_.Prepare("SELECT 1 FROM decisions WHERE idempotency_key = ?1 AND decision = 'send'");
  if (!sent) return db_.Failure("reading earlier sends");
  sent.BindText(1, submission.idempotency_key);
  const int step = sent.Step();
  if (step != SQLITE_ROW && step != SQLITE_DONE) return db_.Failure("reading earlier sends");
  sent.Reset();

  const GateVerdict verdict = decide(step == SQLITE_ROW);
  DecisionRow row;
  row.decided_at = core::Rfc3339Seconds(time(nullptr));
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
  core::sqlite::Statement insert = db_.Prepare(
      "INSERT INTO decisions (decided_at, idempotency_key, kind, decision, reasons, "
      "receipt_sha256, fields, outbox, delivery) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!insert) return db_.Failure("recording the decision");
  insert.BindText(1, row.decided_at);
  insert.BindText(2, row.idempotency_key);
  insert.BindText(3, row.kind);
  insert.BindText(4, row.decision);
  insert.BindText(5, core::DumpJson(ReasonsJson(row.reasons)));
  insert.BindText(6, row.receipt_sha256);
  insert.BindText(7, core::DumpJson(row.fields));
  insert.BindTextOrNull(8, row.outbox);
  insert.BindTextOrNull(9, row.delivery);
  if (insert.Step() != SQLITE_DONE) return db_.Failure("recording the decision");
  row.id = sqlite3_last_insert_rowid(db_.get());

  sqlite3_commit_hook(db_.get(), CommitHook, nullptr);
  core::Status committed = txn->Commit();
  sqlite3_commit_hook(db_.get(), nullptr, nullptr);
  if (!committed.ok()) return committed.error();
  return row;
}

core::Status DecisionLog::MarkDelivered(int64_t id, const std::string& outbox_file) {
  core::sqlite::Statement update = db_.Prepare(
      "UPDATE decisions SET delivery = 'delivered', outbox_file = ?2 WHERE id = ?1 AND decision = 'send'");
  if (!update) return db_.Failure("marking a send delivered");
  update.BindInt64(1, id);
  update.BindText(2, outbox_file);
  if (update.Step() != SQLITE_DONE) return db_.Failure("marking a send delivered");
  return core::Status::Ok();
}

core::Result<std::vector<DecisionRow>> DecisionLog::PendingSends() {
  return Query("WHERE decision = 'send' AND delivery = 'pending'", std::nullopt);
}

core::Result<std::vector<DecisionRow>> DecisionLog::List(const std::optional<std::string>& key) {
  return Query(key ? "WHERE idempotency_key = ?1" : "", key);
}

core::Result<std::vector<DecisionRow>> DecisionLog::Query(const char* where,
                                                    const std::optional<std::string>& key) {
  const std::string sql = std::string("SELECT ") + kColumns + " FROM decisions " + where + " ORDER BY id";
  core::sqlite::Statement select = db_.Prepare(sql);
  if (!select) return db_.Failure("reading decisions");
  if (key) select.BindText(1, *key);
  std::vector<DecisionRow> rows;
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) {
    DecisionRow row;
    row.id = select.Int64(0);
    row.decided_at = select.Text(1);
    row.idempotency_key = select.Text(2);
    row.kind = select.Text(3);
    row.decision = select.Text(4);
    // Written by Record() as JSON; a row edited by hand into something else
    // is shown as it is rather than dropped.
    core::Result<nlohmann::json> reasons = core::ParseJsonStrict(select.Text(5), "reasons");
    if (reasons.ok() && reasons->is_array()) {
      for (const nlohmann::json& r : *reasons) row.reasons.push_back(r.is_string() ? r.get<std::string>() : r.dump());
    } else {
      row.reasons.push_back(select.Text(5));
    }
    row.receipt_sha256 = select.Text(6);
    core::Result<nlohmann::json> fields = core::ParseJsonStrict(select.Text(7), "fields");
    row.fields = fields.ok() ? *fields : nlohmann::json(select.Text(7));
    row.outbox = select.Text(8);
    row.delivery = select.Text(9);
    row.outbox_file = select.Text(10);
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return db_.Failure("reading decisions");
  return rows;
}

}  // namespace ampoule::gate
