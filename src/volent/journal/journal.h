// The node's journal: crash-safe side effects (docs/journal.md,
// docs/decisions/0017-journal.md).
//
// Every side effect of an agent is written here *before* it happens (an
// intent, under the step's idempotency key) and marked done after (a
// completion, with its result). After a restart, a step recorded done is
// never repeated (its recorded result is used), and a step with an intent but
// no completion is re-issued with the same idempotency key.
//
// Storage: DATA_DIR/journal.db, SQLite in WAL mode with synchronous=FULL.
// Entries are append-only, numbered 1, 2, 3, ... and hash-chained. Each
// append is one BEGIN IMMEDIATE transaction, committed (fsync) before the
// call returns; a unique (key, kind) constraint makes a second intent or a
// second completion for one key impossible, across threads and processes.
// An index on (kind, seq) serves reads of one kind (ReadKind); it is not part
// of the chain, and Open adds it to a journal made before it existed.
//
// Thread-safe: one Journal may be shared by threads (calls are serialized on
// its connection); several Journals, in one process or several, may open the
// same folder at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sqlite.h"

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "volent/journal/entry.h"


namespace volent::journal {

inline constexpr char kJournalFile[] = "journal.db";

// Unix time in milliseconds.
using Clock = std::function<int64_t()>;

struct OpenOptions {
  Clock clock;          // empty: the system clock
  bool create = true;   // false (offline tools): a missing or empty journal.db is an
                        // error, and the file's journal mode is left as it is
  int busy_timeout_ms = 30000;  // how long to wait for another writer
  // Called inside every write transaction, after its insert and before its
  // COMMIT (the chaos test kills the node there: scripts/chaos.sh).
  std::function<void()> before_commit;
};

// What BeginEffect found.
enum class BeginOutcome {
  kFresh,            // the intent is recorded now: perform the effect
  kAlreadyIntended,  // an earlier intent, no completion: re-issue with the same key
  kDone,             // already done: use `completion->payload`, do not repeat
};
struct BeginResult {
  BeginOutcome outcome = BeginOutcome::kFresh;
  Entry intent;                     // the recorded intent (new or earlier)
  std::optional<Entry> completion;  // set when outcome is kDone
};

struct CompleteResult {
  bool already_done = false;  // true: an earlier completion stands; this result was not recorded
  Entry completion;           // the recorded completion (new or earlier)
};

// What the journal holds for one key.
struct EffectState {
  std::optional<Entry> intent;
  std::optional<Entry> completion;
};

// An entry appended by Append.
struct AppendResult {
  bool already_recorded = false;  // an entry of this kind and key existed; it is returned
  Entry entry;
};

// Which entries ReadKind returns: those of one kind, a page at a time.
struct KindQuery {
  EntryKind kind = EntryKind::kIntent;
  bool newest_first = false;
  // Where the page starts (the previous page's last seq): oldest first,
  // entries with seq > after; newest first, entries with seq < after, 0
  // meaning from the newest.
  uint64_t after = 0;
  size_t limit = 100;
  std::string agent;  // not empty: only this agent's entries
  // Not empty: only entries whose payload is a JSON object whose member
  // `payload_member` is the string `payload_value`. The member's name is
  // letters, digits and '_' (else ReadKind is an error).
  std::string payload_member;
  std::string payload_value;
};

struct Digest {
  uint64_t entries = 0;
  std::string head{kGenesisHash};  // hash of the last entry; kGenesisHash when empty
  std::string ToString() const { return "sha256:" + head; }  // "sha256:<hex>"
};

struct VerifyReport {
  bool ok = true;
  Digest digest;          // of the entries checked (all of them when ok)
  uint64_t bad_entry = 0; // when !ok: the position (1-based) of the first bad entry; 0 = the file
  std::string problem;    // when !ok: what is wrong, for a person
};

class Journal {
 public:
  // Opens DIR/journal.db, creating it (and its schema) if missing and
  // options.create. DIR must exist. Errors say which file and what to do; a
  // file that is not a journal (or a damaged one) is an error, never a crash.
  static core::Result<std::unique_ptr<Journal>> Open(const std::string& dir,
                                                       OpenOptions options = {});
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& path() const { return path_; }

  // Before a side effect: records its intent with `request`, unless the key
  // already has one. See BeginOutcome for what the caller must do.
  core::Result<BeginResult> BeginEffect(const EffectKey& key, const nlohmann::json& request);
  // After the side effect: records its `result`. An error if the key has no
  // intent; already_done (and the earlier completion) if it had one.
  core::Result<CompleteResult> CompleteEffect(const EffectKey& key, const nlohmann::json& result);
  core::Result<EffectState> Lookup(const EffectKey& key);
  // The entry of `kind` for `key`, if any.
  core::Result<std::optional<Entry>> Get(const EffectKey& key, EntryKind kind);
  // Intents with no completion, oldest first: what a restart re-issues.
  core::Result<std::vector<Entry>> PendingEffects();

  // Appends an entry of any other kind (approvals, run start and finish; use
  // BeginEffect/CompleteEffect for intents and completions). At most one
  // entry of a kind per key: a second returns the first, already_recorded.
  core::Result<AppendResult> Append(EntryKind kind, const EffectKey& key,
                                       const nlohmann::json& payload);

  // Appends an entry about request `number` (from 1) of the sealed tool
  // call at step `step`: kind tool-http-request (before the request is
  // sent) or tool-http-answer (what came back), keyed RequestKey(step,
  // number). As Append, at most one entry of each kind per request (a
  // second returns the first, already_recorded); an answer needs its
  // request's entry first.
  core::Result<AppendResult> AppendForRequest(EntryKind kind, const EffectKey& step, uint64_t number,
                                                 const nlohmann::json& payload);
  // The entry of `kind` (tool-http-request or tool-http-answer) for request
  // `number` of `step`, if any.
  core::Result<std::optional<Entry>> GetForRequest(const EffectKey& step, uint64_t number, EntryKind kind);

  // Appends an entry that belongs to no step (an egress denial no step
  // asked for): its key is AGENT/RUN/SEQ, the step being the entry's own
  // seq, so no other entry has that key, across threads, processes and
  // restarts. `agent` and `run` follow EffectKey's rules.
  core::Result<Entry> AppendOwnKey(EntryKind kind, std::string_view agent, std::string_view run,
                                      const nlohmann::json& payload);

  // Up to `limit` entries with seq > after_seq, ascending (for views).
  core::Result<std::vector<Entry>> Read(uint64_t after_seq, size_t limit);
  // Up to `query.limit` entries of one kind, in seq order (ReadKind(kind,
  // after_seq, limit): ascending, seq > after_seq). Served by an index on
  // (kind, seq) that Open creates when missing, so a page costs its own
  // entries (plus those the filters skip), not the journal's size.
  core::Result<std::vector<Entry>> ReadKind(const KindQuery& query);
  core::Result<std::vector<Entry>> ReadKind(EntryKind kind, uint64_t after_seq, size_t limit);

  // The number of entries and the hash of the last one.
  core::Result<Digest> GetDigest();

  // Checks every entry: numbering without gaps (a removed entry), each
  // field's type, the recorded hash against the recomputed one (an altered
  // field or hash), the chain (prev_hash = the previous hash: a reordered or
  // replaced entry), one intent and at most one completion per key, each
  // after its intent. A removed tail cannot be seen from the file alone:
  // with `expected_head` (the head of a digest recorded elsewhere, e.g. in
  // the attestation), the journal must also contain an entry with that hash
  // (the journal may have grown since). An Error only if the file cannot be
  // read at all; a bad entry is a report with ok = false.
  core::Result<VerifyReport> Verify(std::optional<std::string> expected_head = std::nullopt);

 private:
  Journal() = default;
  core::Status Init(const std::string& dir, OpenOptions options);
  core::Status Setup(bool create, bool& contention);
  core::Result<int64_t> QueryInt(const char* sql);
  core::Status Prepare();
  template <class F>
  auto InWriteTransaction(F&& body) -> decltype(body());
  core::Result<std::optional<Entry>> Find(const std::string& key, EntryKind kind);
  core::Result<EffectState> ReadState(const std::string& key);
  // own_step: the entry's step is its seq (AppendOwnKey); key_text: the
  // entry's key when it is not the step's own (AppendForRequest).
  core::Result<Entry> Insert(EntryKind kind, const EffectKey& key, std::string payload,
                                bool own_step = false, const std::string* key_text = nullptr);

  std::string path_;
  Clock clock_;
  std::function<void()> before_commit_;
  std::mutex mu_;  // guards db_ and the statements: one connection, one caller at a time
  core::sqlite::Database db_;
  core::sqlite::Statement find_;    // by (key, kind)
  core::sqlite::Statement last_;    // the last entry's seq and hash
  core::sqlite::Statement insert_;
};

}  // namespace volent::journal
