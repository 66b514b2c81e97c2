// The journal's read side: views, pending effects, the digest and the
// integrity check (docs/journal.md, "Digest and verify").
#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "core/hex.h"
#include "volent/journal/journal.h"
#include "volent/journal/row.h"

namespace volent::journal {
namespace {

using core::Error;
using core::Result;
using core::Status;

// Collects the rows of `stmt` as entries.
Result<std::vector<Entry>> Collect(const core::sqlite::Database& db, core::sqlite::Statement& stmt) {
  std::vector<Entry> out;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    auto entry = ReadRow(stmt.get());
    if (!entry) return Error{db.name() + ": a damaged entry (run volent journal verify): " + entry.message()};
    out.push_back(std::move(*entry));
  }
  if (rc != SQLITE_DONE) return db.Failure("cannot read entries");
  return out;
}

// "sha256:ABC..." or "abc..." as 64 lowercase hex digits, or nullopt.
std::optional<std::string> NormalizeHead(std::string text) {
  if (text.rfind("sha256:", 0) == 0) text.erase(0, 7);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (!core::IsLowerHex(text, 32)) return std::nullopt;
  return text;
}

// True if `name` is 1..64 letters, digits and '_': a member name that needs
// no quoting in an SQLite JSON path.
bool PlainMemberName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// The SQL of ReadKind for `query`; parameters ?1 kind, ?2 after, ?3 limit,
// ?4 agent, ?5 JSON path, ?6 member value (those used).
std::string KindSql(const KindQuery& query) {
  std::string sql = std::string("SELECT ") + kEntryColumns + " FROM entries WHERE kind = ?1";
  if (query.newest_first) {
    if (query.after != 0) sql += " AND seq < ?2";
  } else {
    sql += " AND seq > ?2";
  }
  if (!query.agent.empty()) sql += " AND agent = ?4";
  // CASE evaluates json_extract only on valid JSON (a damaged payload would
  // otherwise fail the whole query); a number or an object never equals the
  // text bound to ?6.
  if (!query.payload_member.empty()) {
    sql += " AND (CASE WHEN json_valid(payload) THEN json_extract(payload, ?5) END) = ?6";
  }
  sql += query.newest_first ? " ORDER BY seq DESC" : " ORDER BY seq";
  return sql + " LIMIT ?3";
}

// Checks one entry against what came before it; the problem, or "".
// `seen` holds "KIND KEY" of every entry before it (neither has a space).
std::string CheckEntry(const Entry& e, uint64_t position, const std::string& prev_hash,
                       std::set<std::string>& seen) {
  if (e.seq != position) {
    return e.seq > position ? "missing: the next entry is #" + std::to_string(e.seq) +
                                  " (an entry was removed)"
                            : "numbered #" + std::to_string(e.seq) + " out of order";
  }
  if (EntryHash(e) != e.hash) {
    return "its recorded hash does not match its contents (a field or the hash was altered)";
  }
  if (e.prev_hash != prev_hash) {
    return "its prev_hash is not the hash of the entry before it (entries were removed, "
           "reordered or replaced)";
  }
  const std::string step_key = EffectKey{e.agent, e.run, e.step}.ToString();
  if (IsRequestKind(e.kind)) {
    // The step's key, "/http/" and the request's number as RequestKey writes it.
    const std::string prefix = step_key + "/http/";
    const std::string number = e.key.compare(0, prefix.size(), prefix) == 0 ? e.key.substr(prefix.size()) : "";
    if (number.empty() || number.size() > 19 || number[0] == '0' ||
        number.find_first_not_of("0123456789") != std::string::npos) {
      return "its key '" + e.key.substr(0, 80) + "' is not its agent, run and step followed by /http/N";
    }
  } else if (e.key != step_key) {
    return "its key '" + e.key.substr(0, 80) + "' does not match its agent, run and step";
  }
  const std::string kind(KindName(e.kind));
  if (e.kind == EntryKind::kCompletion && !seen.count(std::string(KindName(EntryKind::kIntent)) + " " + e.key)) {
    return "a completion for " + e.key + " before any intent";
  }
  if (e.kind == EntryKind::kToolHttpAnswer &&
      !seen.count(std::string(KindName(EntryKind::kToolHttpRequest)) + " " + e.key)) {
    return "an answer for " + e.key + " before its request";
  }
  // One entry of a kind per key, as the table's unique constraint keeps it.
  if (!seen.insert(kind + " " + e.key).second) return "a second " + kind + " for " + e.key;
  return "";
}

}  // namespace

Result<std::vector<Entry>> Journal::Read(uint64_t after_seq, size_t limit) {
  std::lock_guard lock(mu_);
  auto stmt = db_.Prepare(std::string("SELECT ") + kEntryColumns + " FROM entries WHERE seq > ?1 ORDER BY seq LIMIT ?2");
  if (!stmt) return db_.Failure("cannot read entries");
  stmt.BindInt64(1, static_cast<int64_t>(std::min<uint64_t>(after_seq, kMaxStep)));
  stmt.BindInt64(2, static_cast<int64_t>(std::min<uint64_t>(limit, kMaxStep)));
  return Collect(db_, stmt);
}

Result<std::vector<Entry>> Journal::ReadKind(EntryKind kind, uint64_t after_seq, size_t limit) {
  KindQuery query;
  query.kind = kind;
  query.after = after_seq;
  query.limit = limit;
  return ReadKind(query);
}

Result<std::vector<Entry>> Journal::ReadKind(const KindQuery& query) {
  if (!query.payload_member.empty() && !PlainMemberName(query.payload_member)) {
    return Error{"a payload member to filter on is 1 to 64 letters, digits and '_'"};
  }
  std::lock_guard lock(mu_);
  auto stmt = db_.Prepare(KindSql(query));
  if (!stmt) return db_.Failure("cannot read entries");
  stmt.BindText(1, KindName(query.kind));
  stmt.BindInt64(2, static_cast<int64_t>(std::min<uint64_t>(query.after, kMaxStep)));
  stmt.BindInt64(3, static_cast<int64_t>(std::min<uint64_t>(query.limit, kMaxStep)));
  if (!query.agent.empty()) stmt.BindText(4, query.agent);
  if (!query.payload_member.empty()) {
    stmt.BindText(5, "$." + query.payload_member);
    stmt.BindText(6, query.payload_value);
  }
  return Collect(db_, stmt);
}

Result<std::vector<Entry>> Journal::PendingEffects() {
  std::lock_guard lock(mu_);
  auto stmt = db_.Prepare(std::string("SELECT ") + kEntryColumns +
                          " FROM entries AS i WHERE kind = 'intent' AND NOT EXISTS"
                          " (SELECT 1 FROM entries AS c WHERE c.effect_key = i.effect_key"
                          " AND c.kind = 'completion') ORDER BY seq");
  if (!stmt) return db_.Failure("cannot read pending effects");
  return Collect(db_, stmt);
}

Result<Digest> Journal::GetDigest() {
  std::lock_guard lock(mu_);
  // One read transaction (a consistent snapshot under WAL).
  auto txn = db_.Begin(core::sqlite::Database::Lock::kDeferred);
  if (!txn) return txn.error();
  Digest digest;
  auto count = db_.Prepare("SELECT count(*) FROM entries");
  if (!count || count.Step() != SQLITE_ROW) return db_.Failure("cannot count entries");
  digest.entries = static_cast<uint64_t>(count.Int64(0));
  auto last = db_.Prepare("SELECT hash FROM entries ORDER BY seq DESC LIMIT 1");
  if (!last) return db_.Failure("cannot read the last entry");
  int rc = last.Step();
  if (rc == SQLITE_ROW) {
    // The type first: reading it as text would convert it.
    if (last.Type(0) != SQLITE_TEXT) {
      return Error{path_ + ": the last entry's hash is damaged (run volent journal verify)"};
    }
    digest.head = last.Text(0);
  } else if (rc != SQLITE_DONE) {
    return db_.Failure("cannot read the last entry");
  }
  return digest;
}

Result<VerifyReport> Journal::Verify(std::optional<std::string> expected_head) {
  std::optional<std::string> expected;
  if (expected_head) {
    expected = NormalizeHead(*expected_head);
    if (!expected) return Error{"the expected digest is not sha256: and 64 hex digits"};
  }
  std::lock_guard lock(mu_);
  // One read transaction (a consistent snapshot under WAL).
  auto txn = db_.Begin(core::sqlite::Database::Lock::kDeferred);
  if (!txn) return txn.error();
  auto stmt = db_.Prepare(std::string("SELECT ") + kEntryColumns + " FROM entries ORDER BY seq");
  if (!stmt) return db_.Failure("cannot read entries");
  VerifyReport report;
  std::set<std::string> seen;
  bool found = expected && *expected == kGenesisHash;
  auto fail = [&](uint64_t position, std::string problem) {
    report.ok = false;
    report.bad_entry = position;
    report.problem = std::move(problem);
    return report;
  };
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    const uint64_t position = report.digest.entries + 1;
    auto entry = ReadRow(stmt.get());
    if (!entry) return fail(position, entry.message());
    std::string problem = CheckEntry(*entry, position, report.digest.head, seen);
    if (!problem.empty()) return fail(position, std::move(problem));
    report.digest.entries = position;
    report.digest.head = entry->hash;
    if (expected && entry->hash == *expected) found = true;
  }
  if (rc != SQLITE_DONE) return db_.Failure("cannot read entries");
  if (expected && !found) {
    return fail(report.digest.entries + 1,
                "missing: no entry has the expected hash sha256:" + *expected +
                    " (the journal's tail was removed, or it was rewritten)");
  }
  return report;
}

}  // namespace volent::journal
