// Verify finds every kind of tampering the file alone can show (an altered
// field or hash, a removed or reordered entry, a wrong type) and, with an
// expected digest, a removed tail; damaged databases are errors, never
// crashes.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "volent/journal/journal.h"

namespace volent::journal {
namespace {

class JournalVerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/journal_verify_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto j = Journal::Open(dir_);
    ASSERT_TRUE(j.ok()) << j.message();
    for (uint64_t step = 1; step <= 3; ++step) {
      ASSERT_TRUE((*j)->BeginEffect({"a", "r", step}, {{"step", step}}).ok());
      ASSERT_TRUE((*j)->CompleteEffect({"a", "r", step}, {{"ok", true}}).ok());
    }
    digest_ = *(*j)->GetDigest();
    ASSERT_EQ(digest_.entries, 6u);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Reset() {
    std::filesystem::remove_all(dir_);
    SetUp();
  }

  std::string db_path() const { return dir_ + "/journal.db"; }

  // Runs SQL on the journal's file behind the Journal's back.
  void Tamper(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  // Verify's report after reopening; fails the test if it is an Error.
  VerifyReport Check(std::optional<std::string> expected = std::nullopt) {
    auto j = Journal::Open(dir_);
    EXPECT_TRUE(j.ok()) << j.message();
    if (!j.ok()) return VerifyReport{false, {}, 0, j.message()};
    auto report = (*j)->Verify(expected);
    EXPECT_TRUE(report.ok()) << report.message();
    return report.ok() ? *report : VerifyReport{false, {}, 0, report.message()};
  }

  std::string dir_;
  Digest digest_;
};

TEST_F(JournalVerifyTest, IntactJournalVerifies) {
  auto report = Check(digest_.ToString());
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.digest.entries, 6u);
  EXPECT_EQ(report.digest.head, digest_.head);
}

TEST_F(JournalVerifyTest, AlteredPayload) {
  Tamper(R"(UPDATE entries SET payload = '{"step":9}' WHERE seq = 3)");
  auto report = Check();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.bad_entry, 3u);
  EXPECT_NE(report.problem.find("hash does not match"), std::string::npos) << report.problem;
}

TEST_F(JournalVerifyTest, AlteredTimeAgentAndKind) {
  Tamper("UPDATE entries SET time_ms = time_ms + 1 WHERE seq = 2");
  EXPECT_EQ(Check().bad_entry, 2u);
  Reset();
  Tamper("UPDATE entries SET agent = 'b', effect_key = 'b/r/1' WHERE seq = 1");
  EXPECT_EQ(Check().bad_entry, 1u);
  Reset();
  Tamper("UPDATE entries SET kind = 'run-started' WHERE seq = 5");
  EXPECT_EQ(Check().bad_entry, 5u);
}

TEST_F(JournalVerifyTest, AlteredHash) {
  Tamper("UPDATE entries SET hash = '" + std::string(64, 'a') + "' WHERE seq = 4");
  auto report = Check();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.bad_entry, 4u);
}

TEST_F(JournalVerifyTest, RemovedMiddleEntry) {
  Tamper("DELETE FROM entries WHERE seq = 3");
  auto report = Check();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.bad_entry, 3u);
  EXPECT_NE(report.problem.find("removed"), std::string::npos) << report.problem;
}

TEST_F(JournalVerifyTest, RemovedAndRenumbered) {
  // Renumbering hides the gap, but the hashes cover seq and the chain.
  Tamper("DELETE FROM entries WHERE seq = 3; UPDATE entries SET seq = seq - 1 WHERE seq > 3");
  auto report = Check();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.bad_entry, 3u);
}

TEST_F(JournalVerifyTest, ReorderedPair) {
  Tamper("UPDATE entries SET seq = 100 WHERE seq = 2; UPDATE entries SET seq = 2 WHERE seq = 3;"
         "UPDATE entries SET seq = 3 WHERE seq = 100");
  auto report = Check();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.bad_entry, 2u);
}

TEST_F(JournalVerifyTest, TruncatedTailNeedsTheExpectedDigest) {
  Tamper("DELETE FROM entries WHERE seq = 6");
  EXPECT_TRUE(Check().ok);  // the file alone cannot show it
  auto report = Check(digest_.ToString());
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.bad_entry, 6u);
  EXPECT_NE(report.problem.find("tail was removed"), std::string::npos) << report.problem;
}

TEST_F(JournalVerifyTest, BadExpectedDigestIsAnError) {
  auto j = Journal::Open(dir_);
  ASSERT_TRUE(j.ok());
  EXPECT_FALSE((*j)->Verify("sha256:xyz").ok());
  auto bare = (*j)->Verify(digest_.head);
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->ok);
}

TEST_F(JournalVerifyTest, WrongTypesAreReportedNotCrashed) {
  Tamper("UPDATE entries SET step = 'two' WHERE seq = 3");
  auto report = Check();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.bad_entry, 3u);
  EXPECT_NE(report.problem.find("column step is not an integer"), std::string::npos) << report.problem;
  auto j = Journal::Open(dir_);
  ASSERT_TRUE(j.ok());
  EXPECT_FALSE((*j)->Read(0, 10).ok());
  (void)(*j)->PendingEffects();  // the damaged row is not pending: ok or an error
  EXPECT_TRUE((*j)->Lookup({"a", "r", 1}).ok());
  EXPECT_FALSE((*j)->Lookup({"a", "r", 2}).ok());  // its intent is the damaged row

  Tamper("UPDATE entries SET step = 2, payload = x'00ff' WHERE seq = 3");
  EXPECT_NE(Check().problem.find("column payload is not text"), std::string::npos);
  Tamper("UPDATE entries SET payload = '{}', hash = x'07' WHERE seq = 6");
  auto last = Check();
  EXPECT_EQ(last.bad_entry, 3u);  // the first bad entry is reported
  auto again = Journal::Open(dir_);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE((*again)->GetDigest().ok());
  EXPECT_FALSE((*again)->BeginEffect({"a", "r", 9}, 1).ok());  // no append onto a damaged head
}

TEST_F(JournalVerifyTest, DroppedTableIsAnErrorNotANewJournal) {
  Tamper("DROP TABLE entries");
  auto j = Journal::Open(dir_);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.message().find("missing or damaged"), std::string::npos) << j.message();
}

TEST_F(JournalVerifyTest, NewerFormatIsRefused) {
  Tamper("PRAGMA user_version = 7");
  auto j = Journal::Open(dir_);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.message().find("format version 7"), std::string::npos) << j.message();
}

TEST(JournalCorruptTest, OtherSqliteDatabaseIsNotAJournal) {
  char tmpl[] = "/tmp/journal_corrupt_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir + "/journal.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto j = Journal::Open(dir);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.message().find("not a journal"), std::string::npos) << j.message();
  std::filesystem::remove_all(dir);
}

TEST(JournalCorruptTest, RandomBytesAreAnError) {
  char tmpl[] = "/tmp/journal_corrupt_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::mt19937 rng(7);
  for (size_t size : {1, 100, 4096, 65536}) {
    std::ofstream out(dir + "/journal.db", std::ios::binary | std::ios::trunc);
    for (size_t i = 0; i < size; ++i) out.put(static_cast<char>(rng()));
    out.close();
    auto j = Journal::Open(dir);
    EXPECT_FALSE(j.ok()) << size;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(dir + "/journal.db" + suffix);
  }
  std::filesystem::remove_all(dir);
}

// Random bytes over parts of a real journal: Open, Verify, the reads and an
// append may each succeed or fail cleanly; none may crash, and a journal
// that still verifies must still hold its chain.
TEST(JournalCorruptTest, DamagedPagesNeverCrash) {
  std::mt19937 rng(11);
  for (int round = 0; round < 40; ++round) {
    char tmpl[] = "/tmp/journal_corrupt_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    {
      auto j = Journal::Open(dir);
      ASSERT_TRUE(j.ok());
      for (uint64_t step = 1; step <= 60; ++step) {
        ASSERT_TRUE((*j)->BeginEffect({"a", "r", step}, {{"pad", std::string(step * 7, 'p')}}).ok());
      }
    }  // closing the last connection folds the WAL into the file
    const std::string path = dir + "/journal.db";
    const size_t size = std::filesystem::file_size(path);
    {
      std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
      const size_t at = rng() % size;
      const size_t n = 1 + rng() % 64;
      f.seekp(static_cast<std::streamoff>(at));
      for (size_t i = 0; i < n && at + i < size; ++i) f.put(static_cast<char>(rng()));
    }
    auto j = Journal::Open(dir);
    if (j.ok()) {
      (void)(*j)->Verify();
      (void)(*j)->GetDigest();
      (void)(*j)->Read(0, 1000);
      (void)(*j)->PendingEffects();
      (void)(*j)->Lookup({"a", "r", 5});
      (void)(*j)->BeginEffect({"a", "r", 61}, 1);
    }
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace volent::journal
