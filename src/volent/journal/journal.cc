#include "volent/journal/journal.h"

#include <sodium.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <nlohmann/json.hpp>
#include <utility>

#include "volent/journal/row.h"

namespace volent::journal {
namespace {

using core::Error;
using core::Result;
using core::Status;

// PRAGMA user_version of a journal made by this code. A file with another
// non-zero version is refused rather than misread.
constexpr int kFormatVersion = 1;

constexpr char kSchema[] =
    "CREATE TABLE entries ("
    " seq INTEGER PRIMARY KEY,"
    " kind TEXT NOT NULL,"
    " agent TEXT NOT NULL,"
    " run_id TEXT NOT NULL,"
    " step INTEGER NOT NULL,"
    " effect_key TEXT NOT NULL,"
    " payload TEXT NOT NULL,"
    " time_ms INTEGER NOT NULL,"
    " prev_hash TEXT NOT NULL,"
    " hash TEXT NOT NULL,"
    " UNIQUE (effect_key, kind))";

// Serves ReadKind. Made at every open that may write, so journals made
// before it get it too; it is not part of the chain (no entry changes), and
// a journal without it is read correctly, only more slowly.
constexpr char kKindIndex[] = "CREATE INDEX IF NOT EXISTS entries_by_kind ON entries (kind, seq)";

int64_t SystemClockMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Compact JSON text of `value`, or an error (invalid UTF-8 in a string).
Result<std::string> CompactJson(const nlohmann::json& value) {
  try {
    return value.dump();
  } catch (const std::exception& e) {
    return Error{std::string("journal payload is not valid JSON text: ") + e.what()};
  }
}

// SQLite takes a short file of any bytes for an empty database and would
// write a journal over it; a non-empty file must begin as a database does.
Status CheckHeader(const std::string& path) {
  static constexpr char kMagic[] = "SQLite format 3";  // with its NUL: 16 bytes
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Ok();  // missing: SQLite creates it or says why not
  char header[sizeof kMagic] = {};
  in.read(header, sizeof header);
  if (in.gcount() == 0) return Status::Ok();  // empty: a new database
  if (in.gcount() != sizeof header || std::memcmp(header, kMagic, sizeof kMagic) != 0) {
    return Error{path + ": is not an SQLite database, so not a journal (move it away; do not "
                 "delete it if it may be a damaged journal)"};
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Journal>> Journal::Open(const std::string& dir, OpenOptions options) {
  std::unique_ptr<Journal> journal(new Journal());
  CORE_RETURN_IF_ERROR(journal->Init(dir, std::move(options)));
  return journal;
}

Journal::~Journal() = default;

Status Journal::Init(const std::string& dir, OpenOptions options) {
  if (sodium_init() < 0) return Error{"libsodium cannot initialise"};
  clock_ = options.clock ? std::move(options.clock) : Clock(SystemClockMs);
  before_commit_ = std::move(options.before_commit);
  path_ = dir + "/" + kJournalFile;
  CORE_RETURN_IF_ERROR(CheckHeader(path_));
  core::sqlite::OpenOptions open;
  open.create = options.create;
  // Offline tools (create = false) leave the file's mode as they found it:
  // the node's journal is in WAL mode already, a copy under audit need not be.
  open.wal = options.create;
  open.busy_timeout_ms = options.busy_timeout_ms;
  open.open_hint = options.create ? "check that the data folder exists and is writable"
                                  : "no journal there, or it is not readable";
  auto db = core::sqlite::Database::Open(path_, open);
  if (!db) return db.error();
  db_ = std::move(*db);
  // Reading a new file's first page can report SQLITE_BUSY without waiting
  // (another process is creating or recovering the same file), so the set-up
  // is retried until the timeout.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options.busy_timeout_ms);
  for (unsigned attempt = 0;; ++attempt) {
    bool contention = false;
    Status ready = Setup(options.create, contention);
    if (ready.ok()) break;
    if (!contention || std::chrono::steady_clock::now() > deadline) return ready;
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + attempt % 8));
  }
  return Prepare();
}

// REQUIRES: db_ open. On error, `contention` tells whether another
// connection's lock was the cause (read before the rollback resets it).
Status Journal::Setup(bool create, bool& contention) {
  // The schema is made once, under the write lock, so processes opening a
  // new journal at the same moment do not race.
  using Lock = core::sqlite::Database::Lock;
  auto txn = db_.Begin(create ? Lock::kImmediate : Lock::kDeferred);
  if (!txn) {
    contention = db_.Busy();
    return txn.error();
  }
  Status made = [&]() -> Status {
    auto version = QueryInt("PRAGMA user_version");
    if (!version) return version.error();
    if (*version != kFormatVersion) {
      if (*version != 0) {
        return Error{path_ + ": journal format version " + std::to_string(*version) +
                     " is not known to this volent (expected " + std::to_string(kFormatVersion) + ")"};
      }
      auto objects = QueryInt("SELECT count(*) FROM sqlite_master");
      if (!objects) return objects.error();
      if (*objects != 0 || !create) return Error{path_ + ": is an SQLite database but not a journal"};
      CORE_RETURN_IF_ERROR(db_.Exec(kSchema));
      CORE_RETURN_IF_ERROR(db_.Exec("PRAGMA user_version=1"));
    }
    // Offline tools (create = false) write nothing, and read without it.
    if (!create) return Status::Ok();
    Status indexed = db_.Exec(kKindIndex);
    if (indexed.ok() || db_.Busy()) return indexed;  // contention: retried
    return db_.Failure("the journal's table is missing or damaged");
  }();
  if (!made.ok()) {
    contention = db_.Busy();
    return made;  // txn rolls back
  }
  return txn->Commit();
}

// The single integer a query returns.
Result<int64_t> Journal::QueryInt(const char* sql) {
  core::sqlite::Statement stmt = db_.Prepare(sql);
  if (!stmt || stmt.Step() != SQLITE_ROW) return db_.Failure("cannot read the file's header");
  return stmt.Int64(0);
}

Status Journal::Prepare() {
  const std::string columns = kEntryColumns;
  const std::string find = "SELECT " + columns + " FROM entries WHERE effect_key = ?1 AND kind = ?2";
  const std::string last = "SELECT seq, hash FROM entries ORDER BY seq DESC LIMIT 1";
  const char* insert =
      "INSERT INTO entries (seq, kind, agent, run_id, step, effect_key, payload, time_ms,"
      " prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
  find_ = db_.Prepare(find);
  last_ = db_.Prepare(last);
  insert_ = db_.Prepare(insert);
  if (!find_ || !last_ || !insert_) return db_.Failure("the journal's table is missing or damaged");
  return Status::Ok();
}

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT; rolls back if it fails.
// REQUIRES: mu_ held.
template <class F>
auto Journal::InWriteTransaction(F&& body) -> decltype(body()) {
  auto txn = db_.Begin(core::sqlite::Database::Lock::kImmediate);
  if (!txn) return txn.error();
  auto result = body();
  if (!result.ok()) return result;  // txn rolls back
  if (before_commit_) before_commit_();
  CORE_RETURN_IF_ERROR(txn->Commit());
  return result;
}

// REQUIRES: mu_ held.
Result<std::optional<Entry>> Journal::Find(const std::string& key, EntryKind kind) {
  core::sqlite::ResetOnExit reset(find_);
  find_.BindText(1, key);
  find_.BindText(2, KindName(kind));
  int rc = find_.Step();
  if (rc == SQLITE_DONE) return std::optional<Entry>();
  if (rc != SQLITE_ROW) return db_.Failure("cannot read an entry");
  auto entry = ReadRow(find_.get());
  if (!entry) return Error{path_ + ": a damaged entry for " + key + ": " + entry.message()};
  return std::optional<Entry>(std::move(*entry));
}

// Appends the next entry. REQUIRES: mu_ held, inside a write transaction.
Result<Entry> Journal::Insert(EntryKind kind, const EffectKey& key, std::string payload, bool own_step,
                              const std::string* key_text) {
  Entry e;
  {
    core::sqlite::ResetOnExit reset(last_);
    int rc = last_.Step();
    if (rc == SQLITE_ROW) {
      if (last_.Type(0) != SQLITE_INTEGER || last_.Type(1) != SQLITE_TEXT) {
        return Error{path_ + ": the last entry is damaged (run volent journal verify)"};
      }
      e.seq = static_cast<uint64_t>(last_.Int64(0)) + 1;
      e.prev_hash = last_.Text(1);
    } else if (rc == SQLITE_DONE) {
      e.seq = 1;
      e.prev_hash = kGenesisHash;
    } else {
      return db_.Failure("cannot read the last entry");
    }
  }
  e.kind = kind;
  e.agent = key.agent;
  e.run = key.run;
  e.step = own_step ? e.seq : key.step;
  e.key = key_text ? *key_text : EffectKey{key.agent, key.run, e.step}.ToString();
  e.payload = std::move(payload);
  e.time_ms = clock_();
  e.hash = EntryHash(e);
  core::sqlite::ResetOnExit reset(insert_);
  insert_.BindInt64(1, static_cast<int64_t>(e.seq));
  insert_.BindText(2, KindName(e.kind));
  insert_.BindText(3, e.agent);
  insert_.BindText(4, e.run);
  insert_.BindInt64(5, static_cast<int64_t>(e.step));
  insert_.BindText(6, e.key);
  insert_.BindText(7, e.payload);
  insert_.BindInt64(8, e.time_ms);
  insert_.BindText(9, e.prev_hash);
  insert_.BindText(10, e.hash);
  if (insert_.Step() != SQLITE_DONE) return db_.Failure("cannot append an entry");
  return e;
}

Result<BeginResult> Journal::BeginEffect(const EffectKey& key, const nlohmann::json& request) {
  CORE_RETURN_IF_ERROR(key.Check());
  auto payload = CompactJson(request);
  if (!payload) return payload.error();
  std::lock_guard lock(mu_);
  const std::string text = key.ToString();
  // Entries are never removed, so an earlier intent is final: answered from
  // a read, without the write lock (replays ask this of every done step).
  auto earlier = ReadState(text);
  if (!earlier) return earlier.error();
  if (earlier->intent) {
    BeginResult out;
    out.outcome = earlier->completion ? BeginOutcome::kDone : BeginOutcome::kAlreadyIntended;
    out.intent = std::move(*earlier->intent);
    out.completion = std::move(earlier->completion);
    return out;
  }
  return InWriteTransaction([&]() -> Result<BeginResult> {
    // Another writer may have recorded the intent since the read.
    auto intent = Find(text, EntryKind::kIntent);
    if (!intent) return intent.error();
    BeginResult out;
    if (intent->has_value()) {
      auto completion = Find(text, EntryKind::kCompletion);
      if (!completion) return completion.error();
      out.outcome = completion->has_value() ? BeginOutcome::kDone : BeginOutcome::kAlreadyIntended;
      out.intent = std::move(**intent);
      out.completion = std::move(*completion);
      return out;
    }
    auto entry = Insert(EntryKind::kIntent, key, std::move(*payload));
    if (!entry) return entry.error();
    out.intent = std::move(*entry);
    return out;
  });
}

Result<CompleteResult> Journal::CompleteEffect(const EffectKey& key, const nlohmann::json& result) {
  CORE_RETURN_IF_ERROR(key.Check());
  auto payload = CompactJson(result);
  if (!payload) return payload.error();
  std::lock_guard lock(mu_);
  return InWriteTransaction([&]() -> Result<CompleteResult> {
    const std::string text = key.ToString();
    auto intent = Find(text, EntryKind::kIntent);
    if (!intent) return intent.error();
    if (!intent->has_value()) {
      return Error{"no intent is journaled for " + text + ": call BeginEffect before the effect"};
    }
    auto completion = Find(text, EntryKind::kCompletion);
    if (!completion) return completion.error();
    CompleteResult out;
    if (completion->has_value()) {
      out.already_done = true;
      out.completion = std::move(**completion);
      return out;
    }
    auto entry = Insert(EntryKind::kCompletion, key, std::move(*payload));
    if (!entry) return entry.error();
    out.completion = std::move(*entry);
    return out;
  });
}

Result<AppendResult> Journal::Append(EntryKind kind, const EffectKey& key, const nlohmann::json& payload) {
  if (kind == EntryKind::kIntent || kind == EntryKind::kCompletion) {
    return Error{"intents and completions are journaled with BeginEffect and CompleteEffect"};
  }
  if (IsRequestKind(kind)) return Error{"a tool's requests and answers are journaled with AppendForRequest"};
  CORE_RETURN_IF_ERROR(key.Check());
  auto text = CompactJson(payload);
  if (!text) return text.error();
  std::lock_guard lock(mu_);
  return InWriteTransaction([&]() -> Result<AppendResult> {
    auto existing = Find(key.ToString(), kind);
    if (!existing) return existing.error();
    AppendResult out;
    if (existing->has_value()) {
      out.already_recorded = true;
      out.entry = std::move(**existing);
      return out;
    }
    auto entry = Insert(kind, key, std::move(*text));
    if (!entry) return entry.error();
    out.entry = std::move(*entry);
    return out;
  });
}

Result<AppendResult> Journal::AppendForRequest(EntryKind kind, const EffectKey& step, uint64_t number,
                                              const nlohmann::json& payload) {
  if (!IsRequestKind(kind)) return Error{"only a tool's requests and answers are journaled with AppendForRequest"};
  if (number == 0) return Error{"a tool's requests are numbered from 1"};
  CORE_RETURN_IF_ERROR(step.Check());
  auto text = CompactJson(payload);
  if (!text) return text.error();
  const std::string key = RequestKey(step, number);
  std::lock_guard lock(mu_);
  return InWriteTransaction([&]() -> Result<AppendResult> {
    auto existing = Find(key, kind);
    if (!existing) return existing.error();
    AppendResult out;
    if (existing->has_value()) {
      out.already_recorded = true;
      out.entry = std::move(**existing);
      return out;
    }
    if (kind == EntryKind::kToolHttpAnswer) {
      auto asked = Find(key, EntryKind::kToolHttpRequest);
      if (!asked) return asked.error();
      if (!asked->has_value()) return Error{"no request is journaled for " + key + ": journal it before it is sent"};
    }
    auto entry = Insert(kind, step, std::move(*text), false, &key);
    if (!entry) return entry.error();
    out.entry = std::move(*entry);
    return out;
  });
}

Result<std::optional<Entry>> Journal::GetForRequest(const EffectKey& step, uint64_t number, EntryKind kind) {
  if (!IsRequestKind(kind)) return Error{"only a tool's requests and answers are keyed by request"};
  CORE_RETURN_IF_ERROR(step.Check());
  std::lock_guard lock(mu_);
  return Find(RequestKey(step, number), kind);
}

Result<Entry> Journal::AppendOwnKey(EntryKind kind, std::string_view agent, std::string_view run,
                                    const nlohmann::json& payload) {
  if (kind == EntryKind::kIntent || kind == EntryKind::kCompletion) {
    return Error{"intents and completions are journaled with BeginEffect and CompleteEffect"};
  }
  if (IsRequestKind(kind)) return Error{"a tool's requests and answers are journaled with AppendForRequest"};
  const EffectKey key{std::string(agent), std::string(run), 0};  // the step is the seq, set by Insert
  CORE_RETURN_IF_ERROR(key.Check());
  auto text = CompactJson(payload);
  if (!text) return text.error();
  std::lock_guard lock(mu_);
  // The key is new by construction (seq is unique), so there is nothing to
  // look up; should an entry of this kind have it anyway (Append with a
  // step that happened to equal this seq), the unique constraint refuses
  // the insert and this is an error.
  return InWriteTransaction([&]() -> Result<Entry> { return Insert(kind, key, std::move(*text), true); });
}

Result<EffectState> Journal::Lookup(const EffectKey& key) {
  CORE_RETURN_IF_ERROR(key.Check());
  std::lock_guard lock(mu_);
  return ReadState(key.ToString());
}

// REQUIRES: mu_ held.
Result<EffectState> Journal::ReadState(const std::string& text) {
  // One read transaction, so the pair is consistent (ended when txn goes).
  auto txn = db_.Begin(core::sqlite::Database::Lock::kDeferred);
  if (!txn) return txn.error();
  auto intent = Find(text, EntryKind::kIntent);
  if (!intent) return intent.error();
  auto completion = Find(text, EntryKind::kCompletion);
  if (!completion) return completion.error();
  return EffectState{std::move(*intent), std::move(*completion)};
}

Result<std::optional<Entry>> Journal::Get(const EffectKey& key, EntryKind kind) {
  CORE_RETURN_IF_ERROR(key.Check());
  std::lock_guard lock(mu_);
  return Find(key.ToString(), kind);
}

}  // namespace volent::journal
