// SQLite, the one way the products use it: a file opened for durability
// (write-ahead logging, synchronous=FULL, a busy timeout), statements that
// finalize themselves, and write transactions that roll back unless
// committed. docs/decisions/0027-core-shared-helpers.md.
//
// Contention (SQLITE_BUSY, SQLITE_LOCKED) is waited out up to the busy
// timeout, also where SQLite answers "busy" without consulting its busy
// handler (switching a new file to WAL, a connection recovering the WAL after
// a crash). A Database is used by one thread at a time (SQLITE_OPEN_NOMUTEX).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace core::sqlite {

struct OpenOptions {
  // Create the file if it is missing.
  bool create = true;
  // Switch the file to write-ahead logging and fail if it cannot be. False
  // leaves the file's mode as found (offline tools reading a copy).
  bool wal = true;
  // How long to wait for another connection's lock.
  int busy_timeout_ms = 30'000;
  // How errors name the file ("decision log /x/gate.db"); the path if empty.
  std::string name;
  // Added to a failure to open, in parentheses: what the user should check.
  std::string open_hint;
};

// A prepared statement; finalized when destroyed. Column helpers read the
// current row (after Step() returned SQLITE_ROW).
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, const std::string& sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // False if the SQL did not compile (the Database's Error() says why).
  bool ok() const { return stmt_ != nullptr; }
  explicit operator bool() const { return ok(); }
  sqlite3_stmt* get() const { return stmt_; }

  // Parameters are numbered from 1; text is copied.
  void BindText(int index, std::string_view text);
  // NULL for empty text.
  void BindTextOrNull(int index, std::string_view text);
  void BindInt64(int index, int64_t value);
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step();
  // Ready to run again, with no parameters bound; releases its read lock.
  void Reset();

  int Type(int column) const { return sqlite3_column_type(stmt_, column); }
  int64_t Int64(int column) const { return sqlite3_column_int64(stmt_, column); }
  // "" for NULL.
  std::string Text(int column) const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// Resets a statement kept for reuse when the scope ends, so it holds no lock.
class ResetOnExit {
 public:
  explicit ResetOnExit(Statement& stmt) : stmt_(stmt) {}
  ~ResetOnExit() { stmt_.Reset(); }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  Statement& stmt_;
};

class Transaction;

// An open database file; closed when destroyed.
class Database {
 public:
  // Opens `path` with `options`: busy timeout, extended result codes, WAL
  // (when asked; a file that cannot use it is an error), synchronous=FULL.
  // Errors name the file and end with the hint.
  static Result<Database> Open(const std::string& path, const OpenOptions& options);

  Database() = default;
  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& name() const { return name_; }

  // Runs one or more statements that return no rows; errors name the file.
  Status Exec(const char* sql);
  Statement Prepare(const std::string& sql) { return Statement(db_, sql); }
  // "NAME: doing: SQLite's message about the last failure".
  Error Failure(std::string_view doing) const;
  // Whether the last failure was contention (another connection's lock).
  bool Busy() const;

  enum class Lock { kDeferred, kImmediate };
  // BEGIN (a read snapshot; a write takes the lock when it comes) or BEGIN
  // IMMEDIATE (the write lock now, waiting for other writers).
  Result<Transaction> Begin(Lock lock);

 private:
  sqlite3* db_ = nullptr;
  std::string name_;
  int busy_timeout_ms_ = 0;
};

// An open transaction: rolled back when destroyed unless committed.
class Transaction {
 public:
  ~Transaction();
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // COMMIT; if it fails, the transaction is rolled back and the error returned.
  Status Commit();

 private:
  friend class Database;
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;  // null once committed or moved from
};

}  // namespace core::sqlite
