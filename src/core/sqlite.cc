#include "core/sqlite.h"

#include <chrono>
#include <thread>
#include <utility>

namespace core::sqlite {
namespace {

bool IsContention(int code) {
  code &= 0xff;  // extended result codes carry the primary code in the low byte
  return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

// Runs `attempt` (returning an SQLite result code) until it is not
// contention or `timeout_ms` has passed; returns its last code. For the
// places where SQLite reports "busy" without waiting in its busy handler.
template <class F>
int RetryWhileBusy(int timeout_ms, F&& attempt) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (unsigned n = 0;; ++n) {
    const int rc = attempt();
    if (!IsContention(rc) || std::chrono::steady_clock::now() > deadline) return rc;
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + n % 8));
  }
}

}  // namespace

Statement::Statement(sqlite3* db, const std::string& sql) {
  if (db && sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

void Statement::BindText(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void Statement::BindTextOrNull(int index, std::string_view text) {
  if (text.empty()) {
    sqlite3_bind_null(stmt_, index);
  } else {
    BindText(index, text);
  }
}

void Statement::BindInt64(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, static_cast<sqlite3_int64>(value));
}

int Statement::Step() { return sqlite3_step(stmt_); }

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return text ? std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}

Result<Database> Database::Open(const std::string& path, const OpenOptions& options) {
  Database db;
  db.name_ = options.name.empty() ? path : options.name;
  db.busy_timeout_ms_ = options.busy_timeout_ms;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (options.create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = "cannot open " + db.name_ + ": " + (db.db_ ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc));
    if (!options.open_hint.empty()) message += " (" + options.open_hint + ")";
    return Error{std::move(message)};
  }
  sqlite3_busy_timeout(db.db_, options.busy_timeout_ms);
  sqlite3_extended_result_codes(db.db_, 1);
  if (options.wal) {
    // Switching a new file to WAL needs a moment alone with it: when many
    // processes open a fresh file at once, some are told "busy" at once.
    Statement mode = db.Prepare("PRAGMA journal_mode=WAL");
    if (!mode) return db.Failure("setting write-ahead logging");
    const int step = RetryWhileBusy(db.busy_timeout_ms_, [&] {
      mode.Reset();
      return mode.Step();
    });
    if (step != SQLITE_ROW) return db.Failure("setting write-ahead logging");
    if (mode.Text(0) != "wal") {
      return Error{db.name_ + ": cannot use write-ahead logging (journal mode " + mode.Text(0) + ")"};
    }
  }
  // Each commit is on disk before it is reported (with WAL, FULL syncs the
  // log at every commit).
  CORE_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous=FULL"));
  return db;
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      name_(std::move(other.name_)),
      busy_timeout_ms_(other.busy_timeout_ms_) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    name_ = std::move(other.name_);
    busy_timeout_ms_ = other.busy_timeout_ms_;
  }
  return *this;
}

Status Database::Exec(const char* sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string text = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return Error{name_ + ": " + text};
}

Error Database::Failure(std::string_view doing) const {
  std::string message = name_ + ": " + std::string(doing);
  if (db_) message += ": " + std::string(sqlite3_errmsg(db_));
  return Error{std::move(message)};
}

bool Database::Busy() const { return db_ && IsContention(sqlite3_errcode(db_)); }

Result<Transaction> Database::Begin(Lock lock) {
  const char* sql = lock == Lock::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN";
  // The busy handler waits in most cases; SQLite skips it in a few (another
  // connection recovering the WAL after a crash), so contention is retried
  // here up to the same timeout.
  const int rc = RetryWhileBusy(busy_timeout_ms_, [&] { return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr); });
  if (rc != SQLITE_OK) return Failure("cannot begin a transaction");
  return Transaction(this);
}

Transaction::Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

Transaction::~Transaction() {
  if (db_ && !sqlite3_get_autocommit(db_->get())) sqlite3_exec(db_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::Commit() {
  Database* db = std::exchange(db_, nullptr);
  Status committed = db->Exec("COMMIT");
  // A failed COMMIT can leave the transaction open (SQLITE_BUSY); it is
  // rolled back so the connection can begin the next one.
  if (!committed.ok() && !sqlite3_get_autocommit(db->get())) {
    sqlite3_exec(db->get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
  return committed;
}

}  // namespace core::sqlite
