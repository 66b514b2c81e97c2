// The decision log and the outbox: one send per key, even from many
// connections at once; pending sends; the log's identity (the outbox's
// side is in gate_outbox_test.cc).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "ampoule/gate/action.h"
#include "ampoule/gate/decision_log.h"
#include "ampoule/gate/outbox.h"
#include "core/file_read.h"
#include "core/hex.h"

namespace ampoule::gate {
namespace {

namespace fs = std::filesystem;

class GateLog : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gate-log-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Db() const { return dir_ + "/gate.db"; }
  Submission Sub(const std::string& key) const {
    return {key, "refund", std::string(64, 'a'), {{"amount", "42.00"}}, dir_ + "/outbox"};
  }
  std::string dir_;
};

GateVerdict SendUnlessSent(bool already_sent) {
  return {already_sent ? Decision::kEscalate : Decision::kSend, {already_sent ? "duplicate" : "ok"}};
}

TEST_F(GateLog, RecordsAndListsDecisionsWithTheirReasons) {
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_TRUE(log.ok()) << log.message();
  core::Result<DecisionRow> first = (*log)->Record(Sub("k1"), SendUnlessSent);
  ASSERT_TRUE(first.ok()) << first.message();
  EXPECT_EQ(first->decision, "send");
  EXPECT_EQ(first->delivery, "pending");
  core::Result<DecisionRow> second = (*log)->Record(Sub("k1"), SendUnlessSent);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->decision, "escalate");
  EXPECT_EQ(second->delivery, "");
  ASSERT_TRUE((*log)->Record(Sub("k2"), [](bool) { return GateVerdict{Decision::kHold, {"a", "b"}}; }).ok());

  // A fresh connection sees everything, in order.
  log->reset();
  core::Result<std::unique_ptr<DecisionLog>> again = DecisionLog::Open(Db());
  ASSERT_TRUE(again.ok());
  core::Result<std::vector<DecisionRow>> rows = (*again)->List();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].id, first->id);
  EXPECT_EQ((*rows)[2].reasons, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*rows)[2].fields, (nlohmann::json{{"amount", "42.00"}}));
  EXPECT_EQ((*again)->List(std::string("k1"))->size(), 2u);
  EXPECT_EQ((*again)->PendingSends()->size(), 1u);
  ASSERT_TRUE((*again)->MarkDelivered(first->id, "/x/send-1.json").ok());
  EXPECT_TRUE((*again)->PendingSends()->empty());
  EXPECT_EQ((*again)->List(std::string("k1"))->front().delivery, "delivered");
}

TEST_F(GateLog, UsesWriteAheadLoggingWithFullSync) {
  ASSERT_TRUE(DecisionLog::Open(Db()).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(Db().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST_F(GateLog, TheIndexRefusesASecondSendEvenIfTheRuleIsBypassed) {
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_TRUE(log.ok());
  auto always_send = [](bool) { return GateVerdict{Decision::kSend, {"ok"}}; };
  ASSERT_TRUE((*log)->Record(Sub("k"), always_send).ok());
  core::Result<DecisionRow> second = (*log)->Record(Sub("k"), always_send);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.message().find("UNIQUE"), std::string::npos) << second.message();
  EXPECT_EQ((*log)->List()->size(), 1u);  // rolled back
}

TEST_F(GateLog, ManyConnectionsAtOnceRecordOneSendPerKey) {
  ASSERT_TRUE(DecisionLog::Open(Db()).ok());
  constexpr int kThreads = 8, kEach = 20;
  std::atomic<int> sends{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
      if (!log.ok()) return void(++errors);
      for (int i = 0; i < kEach; ++i) {
        core::Result<DecisionRow> row = (*log)->Record(Sub("k" + std::to_string(i % 4)), SendUnlessSent);
        if (!row.ok()) ++errors;
        else if (row->decision == "send") ++sends;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(sends.load(), 4);
  EXPECT_EQ(DecisionLog::Open(Db()).value()->List()->size(), size_t{kThreads * kEach});
}

TEST_F(GateLog, RefusesALogFromANewerVersionAndAMissingFolder) {
  ASSERT_TRUE(DecisionLog::Open(Db()).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(Db().c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version = 9", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.message().find("newer"), std::string::npos) << log.message();
  core::Result<std::unique_ptr<DecisionLog>> missing = DecisionLog::Open(dir_ + "/no/such/gate.db");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("does its folder exist"), std::string::npos) << missing.message();
}

TEST_F(GateLog, EachLogHasItsOwnIdentityForLife) {
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_TRUE(log.ok()) << log.message();
  const std::string id = (*log)->log_id();
  EXPECT_TRUE(core::IsLowerHex(id, kLogIdBytes)) << id;
  log->reset();
  EXPECT_EQ(DecisionLog::Open(Db()).value()->log_id(), id);  // kept across opens
  EXPECT_NE(DecisionLog::Open(dir_ + "/other.db").value()->log_id(), id);
  // A file deleted and made anew at the same path is another log.
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(Db() + suffix);
  EXPECT_NE(DecisionLog::Open(Db()).value()->log_id(), id);
}

TEST_F(GateLog, ManyProcessesOpeningANewLogAgreeOnItsIdentity) {
  constexpr int kThreads = 8;
  std::vector<std::string> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
      if (log.ok()) ids[t] = (*log)->log_id();
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& id : ids) EXPECT_EQ(id, ids[0]);
  EXPECT_TRUE(core::IsLowerHex(ids[0], kLogIdBytes));
}

// Runs `sql` on the log file directly, as someone with the file would.
void RawSql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST_F(GateLog, ALogFromBeforeIdentitiesGetsOneOnOpenAndKeepsItsDecisions) {
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Record(Sub("k1"), SendUnlessSent).ok());
  const std::string before = (*log)->log_id();
  log->reset();
  // What a version 1 log looks like: the decisions table alone.
  RawSql(Db(), "DROP TABLE meta; PRAGMA user_version = 1;");

  core::Result<std::unique_ptr<DecisionLog>> migrated = DecisionLog::Open(Db());
  ASSERT_TRUE(migrated.ok()) << migrated.message();
  EXPECT_TRUE(core::IsLowerHex((*migrated)->log_id(), kLogIdBytes));
  EXPECT_NE((*migrated)->log_id(), before);
  EXPECT_EQ((*migrated)->List()->size(), 1u);
  EXPECT_EQ((*migrated)->PendingSends()->size(), 1u);
  const std::string id = (*migrated)->log_id();
  migrated->reset();
  EXPECT_EQ(DecisionLog::Open(Db()).value()->log_id(), id);
}

TEST_F(GateLog, AnIdentityEditedIntoSomethingElseIsRefused) {
  ASSERT_TRUE(DecisionLog::Open(Db()).ok());
  RawSql(Db(), "UPDATE meta SET value = 'same-as-the-other-log' WHERE name = 'log_id'");
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.message().find("identity"), std::string::npos) << log.message();
}

TEST_F(GateLog, OneKeyInTwoNormalFormsIsADuplicate) {
  // The same key, precomposed and with a combining accent, as drafts.
  auto key_of = [](const std::string& key) {
    const std::string draft = R"({"kind": "refund", "idempotency_key": ")" + key + R"(",
      "fields": {"amount": {"value": "42.00", "from": "/amount"}}, "data_as_of": "2026-11-29T08:00:00Z",
      "evidence": {"receipt": "r", "program": "p", "output": "o"}})";
    core::Result<ActionDraft> d = ParseActionDraft(draft, "/d");
    EXPECT_TRUE(d.ok()) << d.message();
    return d.ok() ? d->idempotency_key : std::string();
  };
  const std::string nfc = key_of("refund:caf\u00e9"), nfd = key_of("refund:cafe\u0301");
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_TRUE(log.ok()) << log.message();
  core::Result<DecisionRow> first = (*log)->Record(Sub(nfc), SendUnlessSent);
  ASSERT_TRUE(first.ok()) << first.message();
  EXPECT_EQ(first->decision, "send");
  core::Result<DecisionRow> second = (*log)->Record(Sub(nfd), SendUnlessSent);
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_EQ(second->decision, "escalate");
  EXPECT_EQ(second->idempotency_key, "refund:caf\xC3\xA9");
  core::Result<std::vector<DecisionRow>> rows = (*log)->List("refund:caf\xC3\xA9");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 2u);
}

TEST_F(GateLog, TheOutboxMessageCarriesEachFieldsPointer) {
  DecisionRow send;
  send.id = 8;
  send.kind = "refund";
  send.idempotency_key = "refund:A-2";
  // The shape submit records (docs/gate.md): value and the pointer it was checked at.
  send.fields = {{"amount", {{"value", "42.00"}, {"from", "/orders/1/amount"}}},
                 {"recipient", {{"value", "bo"}, {"from", "/orders/0/customer"}}}};
  send.receipt_sha256 = std::string(64, 'b');
  send.decided_at = "2026-11-29T08:00:00Z";
  send.outbox = dir_ + "/outbox";
  core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(Db());
  ASSERT_TRUE(log.ok()) << log.message();
  core::Result<std::string> file = DeliverToOutbox(**log, send);
  ASSERT_TRUE(file.ok()) << file.message();
  nlohmann::json message = nlohmann::json::parse(*core::ReadFileCapped(*file));
  EXPECT_EQ(message["fields"]["amount"]["from"], "/orders/1/amount");
  EXPECT_EQ(message["fields"]["recipient"]["from"], "/orders/0/customer");
  EXPECT_EQ(message["fields"]["amount"]["value"], "42.00");
  EXPECT_EQ(message["receipt_sha256"], std::string(64, 'b'));
}

}  // namespace
}  // namespace ampoule::gate
