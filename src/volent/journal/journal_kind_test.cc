// Reading entries of one kind (ReadKind: paging both ways, the agent and
// payload filters, the index on existing journals), entries with a key of
// their own (AppendOwnKey), Verify's one-entry-per-kind-and-key rule
// for the egress-denied kind, and a sealed tool's requests and answers keyed
// by request (AppendForRequest, STEP/http/N).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "volent/journal/journal.h"

namespace volent::journal {
namespace {

class JournalKindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/journal_kind_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Journal> OpenJournal() {
    auto j = Journal::Open(dir_);
    EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.message());
    return j.ok() ? std::move(*j) : nullptr;
  }

  // Denials of agents a and b, capabilities c0..c2, between effects of
  // other kinds: 12 denials at seqs 2, 4, ..., 24.
  void Fill(Journal& j) {
    for (uint64_t step = 1; step <= 12; ++step) {
      ASSERT_TRUE(j.BeginEffect({"a", "r", step}, {{"step", step}}).ok());
      const std::string agent = step % 2 ? "a" : "b";
      ASSERT_TRUE(j.Append(EntryKind::kEgressDenied, {agent, "r", step},
                           {{"capability", "c" + std::to_string(step % 3)}, {"hop", 0}})
                      .ok());
    }
  }

  // The seqs of `entries`.
  static std::vector<uint64_t> Seqs(const core::Result<std::vector<Entry>>& entries) {
    EXPECT_TRUE(entries.ok()) << entries.message();
    std::vector<uint64_t> out;
    if (entries.ok()) {
      for (const Entry& e : *entries) out.push_back(e.seq);
    }
    return out;
  }

  // Names of the indexes on the entries table.
  std::vector<std::string> Indexes() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL", -1,
                       &stmt, nullptr);
    std::vector<std::string> names;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return names;
  }

  std::string dir_;
};

using Seq = std::vector<uint64_t>;

TEST_F(JournalKindTest, PagesOldestFirst) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  Fill(*j);
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kEgressDenied, 0, 3)), (Seq{2, 4, 6}));
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kEgressDenied, 6, 3)), (Seq{8, 10, 12}));
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kEgressDenied, 7, 2)), (Seq{8, 10}));
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kEgressDenied, 22, 3)), (Seq{24}));
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kEgressDenied, 24, 3)), Seq{});
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kIntent, 20, 100)), (Seq{21, 23}));
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kRunStarted, 0, 100)), Seq{});
  auto first = j->ReadKind(EntryKind::kEgressDenied, 0, 1);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].key, "a/r/1");
  EXPECT_EQ((*first)[0].payload, R"({"capability":"c1","hop":0})");
}

TEST_F(JournalKindTest, PagesNewestFirst) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  Fill(*j);
  KindQuery q;
  q.kind = EntryKind::kEgressDenied;
  q.newest_first = true;
  q.limit = 4;
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{24, 22, 20, 18}));
  q.after = 18;
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{16, 14, 12, 10}));
  q.after = 3;
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{2}));
  q.after = 2;
  EXPECT_EQ(Seqs(j->ReadKind(q)), Seq{});
}

TEST_F(JournalKindTest, FiltersByAgentAndPayloadMember) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  Fill(*j);
  // Another kind with the member is not counted, nor a member of another type.
  ASSERT_TRUE(j->Append(EntryKind::kRunStarted, {"a", "r", 0}, {{"capability", "c1"}}).ok());
  ASSERT_TRUE(j->Append(EntryKind::kEgressDenied, {"a", "r", 99}, {{"capability", 1}}).ok());
  ASSERT_TRUE(j->Append(EntryKind::kEgressDenied, {"a", "r", 98}, "c1").ok());
  KindQuery q;
  q.kind = EntryKind::kEgressDenied;
  q.agent = "a";
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{2, 6, 10, 14, 18, 22, 26, 27}));
  q.payload_member = "capability";
  q.payload_value = "c1";
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{2, 14}));  // steps 1 and 7
  q.agent.clear();
  q.limit = 3;
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{2, 8, 14}));  // steps 1, 4, 7
  q.after = 14;
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{20}));
  q.newest_first = true;
  q.after = 0;
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{20, 14, 8}));
  q.payload_value = "none";
  EXPECT_EQ(Seqs(j->ReadKind(q)), Seq{});
  q.payload_member = "$.x') OR 1=1 --";
  EXPECT_FALSE(j->ReadKind(q).ok());
}

TEST_F(JournalKindTest, DamagedPayloadIsSkippedByTheFilterNotAnError) {
  {
    auto j = OpenJournal();
    ASSERT_TRUE(j);
    Fill(*j);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE entries SET payload = '{not json' WHERE seq = 2", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  KindQuery q;
  q.kind = EntryKind::kEgressDenied;
  q.payload_member = "capability";
  q.payload_value = "c1";
  EXPECT_EQ(Seqs(j->ReadKind(q)), (Seq{8, 14, 20}));
}

// A journal made before the index existed (as an older volent made it) gets
// it at the next open, with its entries and digest unchanged.
TEST_F(JournalKindTest, IndexIsAddedToAnExistingJournal) {
  Digest before;
  {
    auto j = OpenJournal();
    ASSERT_TRUE(j);
    Fill(*j);
    before = *j->GetDigest();
  }
  EXPECT_EQ(Indexes(), std::vector<std::string>{"entries_by_kind"});
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP INDEX entries_by_kind", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_TRUE(Indexes().empty());
  {
    // An offline reader writes nothing, and reads without the index.
    OpenOptions offline;
    offline.create = false;
    auto j = Journal::Open(dir_, offline);
    ASSERT_TRUE(j.ok()) << j.message();
    EXPECT_EQ(Seqs((*j)->ReadKind(EntryKind::kEgressDenied, 20, 10)), (Seq{22, 24}));
  }
  EXPECT_TRUE(Indexes().empty());
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  EXPECT_EQ(Indexes(), std::vector<std::string>{"entries_by_kind"});
  auto after = j->GetDigest();
  EXPECT_EQ(after->entries, before.entries);
  EXPECT_EQ(after->head, before.head);
  EXPECT_TRUE(j->Verify(before.ToString())->ok);
  EXPECT_EQ(Seqs(j->ReadKind(EntryKind::kEgressDenied, 20, 10)), (Seq{22, 24}));
}

TEST_F(JournalKindTest, OwnKeysTakeTheEntrysSeqAsStep) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->BeginEffect({"a", "r", 1}, 1).ok());
  auto first = j->AppendOwnKey(EntryKind::kEgressDenied, "egress", "~denied", {{"url", "x"}});
  ASSERT_TRUE(first.ok()) << first.message();
  EXPECT_EQ(first->seq, 2u);
  EXPECT_EQ(first->step, 2u);
  EXPECT_EQ(first->key, "egress/~denied/2");
  EXPECT_EQ(first->hash, EntryHash(*first));
  auto second = j->AppendOwnKey(EntryKind::kEgressDenied, "egress", "~denied", {{"url", "x"}});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->key, "egress/~denied/3");
  EXPECT_FALSE(j->AppendOwnKey(EntryKind::kIntent, "egress", "~denied", 1).ok());
  EXPECT_FALSE(j->AppendOwnKey(EntryKind::kEgressDenied, "egress", "a b", 1).ok());
  EXPECT_FALSE(j->AppendOwnKey(EntryKind::kEgressDenied, "", "r", 1).ok());
  // Its key is an ordinary key: found by Get, and once per kind.
  auto got = j->Get({"egress", "~denied", 2}, EntryKind::kEgressDenied);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->seq, 2u);
  EXPECT_TRUE(j->Append(EntryKind::kEgressDenied, {"egress", "~denied", 3}, 0)->already_recorded);
  // A key taken by Append before its seq came: an error, nothing written.
  ASSERT_TRUE(j->Append(EntryKind::kEgressDenied, {"egress", "~denied", 5}, 0).ok());  // seq 4
  EXPECT_FALSE(j->AppendOwnKey(EntryKind::kEgressDenied, "egress", "~denied", 0).ok());
  EXPECT_EQ(j->GetDigest()->entries, 4u);
  EXPECT_TRUE(j->Verify()->ok);
}

TEST_F(JournalKindTest, VerifyRefusesASecondDenialForAKey) {
  {
    auto j = OpenJournal();
    ASSERT_TRUE(j);
    Fill(*j);
    EXPECT_TRUE(j->Verify()->ok);
  }
  // Written behind the journal's back: the unique constraint dropped, a
  // second denial for a/r/1 appended with a correct hash and chain.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE copy AS SELECT * FROM entries; DROP TABLE entries;"
                         " ALTER TABLE copy RENAME TO entries;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto last = j->Read(23, 1);
  ASSERT_TRUE(last.ok() && last->size() == 1);
  Entry e;
  e.seq = 25;
  e.kind = EntryKind::kEgressDenied;
  e.agent = "a";
  e.run = "r";
  e.step = 1;
  e.key = "a/r/1";
  e.payload = "{}";
  e.time_ms = 1;
  e.prev_hash = (*last)[0].hash;
  e.hash = EntryHash(e);
  ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
  const std::string insert = "INSERT INTO entries VALUES (25, 'egress-denied', 'a', 'r', 1, 'a/r/1', '{}', 1, '" +
                             e.prev_hash + "', '" + e.hash + "')";
  ASSERT_EQ(sqlite3_exec(db, insert.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto report = j->Verify();
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->ok);
  EXPECT_EQ(report->bad_entry, 25u);
  EXPECT_EQ(report->problem, "a second egress-denied for a/r/1");
}

TEST_F(JournalKindTest, RequestsAndAnswersAreKeyedByTheStepAndTheRequestsNumber) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  const EffectKey step{"a", "r", 4};
  ASSERT_TRUE(j->BeginEffect(step, {{"type", "tool"}}).ok());
  // An answer before its request is refused: a request is journaled before it is sent.
  EXPECT_FALSE(j->AppendForRequest(EntryKind::kToolHttpAnswer, step, 1, {{"answer", 1}}).ok());
  auto asked = j->AppendForRequest(EntryKind::kToolHttpRequest, step, 1, {{"request", "GET"}});
  ASSERT_TRUE(asked.ok()) << asked.message();
  EXPECT_FALSE(asked->already_recorded);
  EXPECT_EQ(asked->entry.key, "a/r/4/http/1");
  EXPECT_EQ(asked->entry.step, 4u);
  EXPECT_EQ(RequestKey(step, 12), "a/r/4/http/12");
  ASSERT_TRUE(j->AppendForRequest(EntryKind::kToolHttpAnswer, step, 1, {{"answer", 200}}).ok());
  ASSERT_TRUE(j->AppendForRequest(EntryKind::kToolHttpRequest, step, 2, {{"request", "POST"}}).ok());
  // A second of a kind for one request returns the first: a replay adds nothing.
  auto again = j->AppendForRequest(EntryKind::kToolHttpRequest, step, 1, {{"request", "other"}});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_recorded);
  EXPECT_EQ(again->entry.payload, R"({"request":"GET"})");
  auto answer = j->GetForRequest(step, 1, EntryKind::kToolHttpAnswer);
  ASSERT_TRUE(answer.ok() && *answer);
  EXPECT_EQ((*answer)->payload, R"({"answer":200})");
  auto none = j->GetForRequest(step, 2, EntryKind::kToolHttpAnswer);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);
  // Neither the step's key nor its intent and completion are touched.
  auto state = j->Lookup(step);
  ASSERT_TRUE(state.ok());
  EXPECT_TRUE(state->intent && !state->completion);
  // Each kind has its own way in: no request number 0, no other kind by request,
  // no request kind by step.
  EXPECT_FALSE(j->AppendForRequest(EntryKind::kToolHttpRequest, step, 0, {}).ok());
  EXPECT_FALSE(j->AppendForRequest(EntryKind::kEgressDenied, step, 1, {}).ok());
  EXPECT_FALSE(j->Append(EntryKind::kToolHttpRequest, step, {}).ok());
  EXPECT_FALSE(j->AppendOwnKey(EntryKind::kToolHttpAnswer, "a", "r", {}).ok());
  EXPECT_FALSE(j->GetForRequest(step, 1, EntryKind::kCompletion).ok());
  auto report = j->Verify();
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok) << report->problem;
  EXPECT_EQ(report->digest.entries, 4u);
  auto kinds = j->ReadKind(EntryKind::kToolHttpRequest, 0, 10);
  ASSERT_TRUE(kinds.ok());
  EXPECT_EQ(kinds->size(), 2u);
}

TEST_F(JournalKindTest, VerifyRefusesARequestKeyThatIsNotItsStepsAndAnAnswerBeforeItsRequest) {
  {
    auto j = OpenJournal();
    ASSERT_TRUE(j);
    ASSERT_TRUE(j->AppendForRequest(EntryKind::kToolHttpRequest, {"a", "r", 4}, 1, {}).ok());
  }
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto first = j->Read(0, 1);
  ASSERT_TRUE(first.ok() && first->size() == 1);
  // Entries written behind the journal's back, each with a correct hash and chain.
  auto with = [&](EntryKind kind, const std::string& key) {
    Entry e;
    e.seq = 2;
    e.kind = kind;
    e.agent = "a";
    e.run = "r";
    e.step = 4;
    e.key = key;
    e.payload = "{}";
    e.time_ms = 1;
    e.prev_hash = (*first)[0].hash;
    e.hash = EntryHash(e);
    return e;
  };
  const std::pair<Entry, std::string> cases[] = {
      {with(EntryKind::kToolHttpAnswer, "a/r/4/http/2"), "an answer for a/r/4/http/2 before its request"},
      {with(EntryKind::kToolHttpRequest, "a/r/4"), "is not its agent, run and step followed by /http/N"},
      {with(EntryKind::kToolHttpRequest, "a/r/5/http/1"), "is not its agent, run and step followed by /http/N"},
      {with(EntryKind::kToolHttpRequest, "a/r/4/http/01"), "is not its agent, run and step followed by /http/N"},
      {with(EntryKind::kToolHttpAnswer, "a/r/4/http/"), "is not its agent, run and step followed by /http/N"},
      {with(EntryKind::kEgressDenied, "a/r/4/http/1"), "does not match its agent, run and step"},
  };
  for (const auto& [e, problem] : cases) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
    const std::string insert = "DELETE FROM entries WHERE seq = 2; INSERT INTO entries VALUES (2, '" +
                               std::string(KindName(e.kind)) + "', 'a', 'r', 4, '" + e.key + "', '{}', 1, '" +
                               e.prev_hash + "', '" + e.hash + "')";
    ASSERT_EQ(sqlite3_exec(db, insert.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    auto report = j->Verify();
    ASSERT_TRUE(report.ok());
    EXPECT_FALSE(report->ok) << e.key;
    EXPECT_EQ(report->bad_entry, 2u) << e.key;
    EXPECT_NE(report->problem.find(problem), std::string::npos) << e.key << ": " << report->problem;
  }
}

TEST(EffectKeyTest, ParseReadsOnlyAStepsKeyAsToStringWritesIt) {
  auto key = EffectKey::Parse("refund-bot/order-17/3");
  ASSERT_TRUE(key);
  EXPECT_EQ(key->agent, "refund-bot");
  EXPECT_EQ(key->run, "order-17");
  EXPECT_EQ(key->step, 3u);
  for (const char* bad : {"", "a", "a/3", "a/r/03", "a/r/-1", "a/r/x", "a//3", "/r/3", "a/r/3/http/1", "a/r /3",
                          "a/r/99999999999999999999"}) {
    EXPECT_FALSE(EffectKey::Parse(bad)) << bad;
  }
}

}  // namespace
}  // namespace volent::journal
