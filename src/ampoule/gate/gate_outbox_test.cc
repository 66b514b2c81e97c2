// The outbox as an attacker, or an accident, would meet it: two decision
// logs sharing one outbox, a gate.db deleted and made anew under the old
// outbox, a file planted under a message's name, an outbox from before
// markers. In each, no send may be reported delivered unless its own
// message is in the outbox, and a send that cannot be delivered stays
// pending (docs/threat-model.md, "The trust gate: the outbox").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ampoule/gate/decision_log.h"
#include "ampoule/gate/outbox.h"
#include "ampoule/gate/submit.h"
#include "core/file_read.h"
#include "core/sha256.h"

namespace ampoule::gate {
namespace {

namespace fs = std::filesystem;

class Outbox : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gate-outbox-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string OutboxDir() const { return dir_ + "/outbox"; }
  std::unique_ptr<DecisionLog> Open(const std::string& name) {
    core::Result<std::unique_ptr<DecisionLog>> log = DecisionLog::Open(dir_ + "/" + name);
    EXPECT_TRUE(log.ok()) << log.message();
    return log.ok() ? std::move(*log) : nullptr;
  }
  // Records a send for `key` in `log`, as Submit does before delivering.
  static DecisionRow RecordSend(DecisionLog& log, const std::string& key, const std::string& outbox) {
    Submission s{key, "refund", std::string(64, 'a'), {{"amount", "42.00"}, {"to", "bo"}}, outbox};
    core::Result<DecisionRow> row = log.Record(s, [](bool sent) {
      return GateVerdict{sent ? Decision::kEscalate : Decision::kSend, {"ok"}};
    });
    EXPECT_TRUE(row.ok()) << row.message();
    EXPECT_EQ(row->decision, "send");
    return *row;
  }
  // The names in the outbox that are not dot files: the messages.
  std::vector<std::string> Messages() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(OutboxDir(), ec)) {
      const std::string name = e.path().filename().string();
      if (name[0] != '.') names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  std::vector<std::string> AllFiles() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(OutboxDir(), ec)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  static std::string Read(const std::string& path) { return core::ReadFileCapped(path).value(); }
  static void Write(const std::string& path, const std::string& bytes) { std::ofstream(path) << bytes; }

  // Every send `log` calls delivered is in the outbox, as its own message.
  static void ExpectDeliveredMeansInAFile(DecisionLog& log) {
    core::Result<std::vector<DecisionRow>> rows = log.List();
    ASSERT_TRUE(rows.ok()) << rows.message();
    for (const DecisionRow& row : *rows) {
      if (row.delivery != "delivered") continue;
      ASSERT_TRUE(fs::exists(row.outbox_file)) << "send #" << row.id << " delivered to a missing file";
      EXPECT_EQ(Read(row.outbox_file), OutboxMessage(log.log_id(), row)) << row.outbox_file;
    }
  }

  std::string dir_;
};

TEST_F(Outbox, AMessageIsNamedByLogDecisionAndKeyAndSaysSo) {
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  DecisionRow send = RecordSend(*log, "refund:A-1", OutboxDir());
  core::Result<std::string> file = DeliverToOutbox(*log, send);
  ASSERT_TRUE(file.ok()) << file.message();
  const std::string name = "send-" + log->log_id().substr(0, 16) + "-" + std::to_string(send.id) + "-" +
                           core::Sha256Hex("refund:A-1").substr(0, 16) + ".json";
  EXPECT_EQ(*file, OutboxDir() + "/" + name);
  EXPECT_EQ(OutboxFileName(log->log_id(), send), name);
  // The marker and the message; no temporary left behind.
  EXPECT_EQ(AllFiles(), (std::vector<std::string>{kOutboxMarker, name}));
  nlohmann::json message = nlohmann::json::parse(Read(*file));
  EXPECT_EQ(message["decision_log"], log->log_id());
  EXPECT_EQ(message["decision_id"], send.id);
  EXPECT_EQ(message["idempotency_key"], "refund:A-1");
  EXPECT_EQ(message["fields"]["amount"], "42.00");
  EXPECT_EQ(message["receipt_sha256"], std::string(64, 'a'));
  EXPECT_EQ(message["decided_at"], send.decided_at);
  nlohmann::json marker = nlohmann::json::parse(Read(OutboxDir() + "/" + kOutboxMarker));
  EXPECT_EQ(marker["decision_log"], log->log_id());
  EXPECT_EQ(marker["decision_log_path"], dir_ + "/gate.db");
}

TEST_F(Outbox, ADeliveryCutShortBeforeTheMarkIsFinishedWithExactlyOneFile) {
  // The message is written but the process dies before MarkDelivered
  // (AMPOULE_GATE_CRASH_AT=after-deliver): the row, read back from the log,
  // must make the same bytes, so the next gate command recognises its file.
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  DecisionRow send = RecordSend(*log, "refund:A-1", OutboxDir());
  core::Result<std::string> first = DeliverToOutbox(*log, send);
  ASSERT_TRUE(first.ok()) << first.message();
  log.reset();

  std::unique_ptr<DecisionLog> next = Open("gate.db");
  std::vector<std::string> notes;
  ASSERT_TRUE(FinishPendingSends(*next, notes).ok());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("delivered send #" + std::to_string(send.id)), std::string::npos) << notes[0];
  EXPECT_TRUE(next->PendingSends()->empty());
  EXPECT_EQ(next->List()->front().outbox_file, *first);
  EXPECT_EQ(Messages().size(), 1u);
  EXPECT_EQ(AllFiles().size(), 2u);  // and the marker
  ExpectDeliveredMeansInAFile(*next);
}

TEST_F(Outbox, ConcurrentDeliveriesOfOneSendMakeOneFile) {
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  DecisionRow send = RecordSend(*log, "refund:A-1", OutboxDir());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      std::unique_ptr<DecisionLog> own = DecisionLog::Open(dir_ + "/gate.db").value();
      if (!DeliverToOutbox(*own, send).ok()) ++failures;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Messages().size(), 1u);
  EXPECT_EQ(AllFiles().size(), 2u);
}

TEST_F(Outbox, ASecondLogSharingTheOutboxIsRefused) {
  std::unique_ptr<DecisionLog> first = Open("gate.db");
  DecisionRow sent = RecordSend(*first, "refund:A-1", OutboxDir());
  ASSERT_TRUE(DeliverToOutbox(*first, sent).ok());
  ASSERT_TRUE(first->MarkDelivered(sent.id, OutboxDir() + "/" + OutboxFileName(first->log_id(), sent)).ok());

  // The attacker's log (a --db of their choosing) points at the same outbox.
  // Its first decision has id 1 too, for the same key: under names by id
  // alone it would have been "delivered" into the first log's file.
  std::unique_ptr<DecisionLog> second = Open("other.db");
  ASSERT_NE(second->log_id(), first->log_id());
  core::Status prepared = PrepareOutbox(OutboxDir(), *second);
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.message().find("belongs to another decision log"), std::string::npos) << prepared.message();
  EXPECT_NE(prepared.message().find(first->log_id()), std::string::npos) << prepared.message();
  EXPECT_NE(prepared.message().find("an outbox of its own"), std::string::npos) << prepared.message();

  // A send recorded anyway (a Submit that raced the check, or a pending
  // send from before) is not delivered and stays pending.
  DecisionRow theirs = RecordSend(*second, "refund:A-1", OutboxDir());
  EXPECT_EQ(theirs.id, sent.id);
  core::Result<std::string> delivered = DeliverToOutbox(*second, theirs);
  ASSERT_FALSE(delivered.ok());
  EXPECT_NE(delivered.message().find("belongs to another decision log"), std::string::npos);
  std::vector<std::string> notes;
  ASSERT_TRUE(FinishPendingSends(*second, notes).ok());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("still pending"), std::string::npos) << notes[0];
  EXPECT_EQ(second->PendingSends()->size(), 1u);
  EXPECT_EQ(Messages(), (std::vector<std::string>{OutboxFileName(first->log_id(), sent)}));
  ExpectDeliveredMeansInAFile(*first);
  ExpectDeliveredMeansInAFile(*second);
}

TEST_F(Outbox, ALogDeletedAndMadeAnewDoesNotInheritItsOutbox) {
  std::unique_ptr<DecisionLog> old_log = Open("gate.db");
  const std::string old_id = old_log->log_id();
  DecisionRow sent = RecordSend(*old_log, "refund:A-1", OutboxDir());
  ASSERT_TRUE(DeliverToOutbox(*old_log, sent).ok());
  old_log.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(dir_ + "/gate.db" + std::string(suffix));

  // The same path, a new file: a new identity, ids from 1 again.
  std::unique_ptr<DecisionLog> fresh = Open("gate.db");
  ASSERT_NE(fresh->log_id(), old_id);
  core::Status prepared = PrepareOutbox(OutboxDir(), *fresh);
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.message().find("was replaced"), std::string::npos) << prepared.message();
  DecisionRow again = RecordSend(*fresh, "refund:A-1", OutboxDir());
  EXPECT_EQ(again.id, sent.id);
  std::vector<std::string> notes;
  ASSERT_TRUE(FinishPendingSends(*fresh, notes).ok());
  EXPECT_EQ(fresh->PendingSends()->size(), 1u);
  ExpectDeliveredMeansInAFile(*fresh);
  EXPECT_EQ(Messages().size(), 1u);
}

TEST_F(Outbox, AFilePlantedUnderAMessagesNameIsNotTakenForIt) {
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  ASSERT_TRUE(PrepareOutbox(OutboxDir(), *log).ok());
  DecisionRow send = RecordSend(*log, "refund:A-1", OutboxDir());
  // The name is predictable once the marker is readable; the bytes are not
  // this decision's message (here: the right message with another amount).
  const std::string path = OutboxDir() + "/" + OutboxFileName(log->log_id(), send);
  DecisionRow forged = send;
  forged.fields["amount"] = "4200.00";
  const std::string planted = OutboxMessage(log->log_id(), forged);
  Write(path, planted);

  core::Result<std::string> delivered = DeliverToOutbox(*log, send);
  ASSERT_FALSE(delivered.ok());
  EXPECT_NE(delivered.message().find(path), std::string::npos) << delivered.message();
  EXPECT_NE(delivered.message().find("not the message of send #" + std::to_string(send.id)), std::string::npos)
      << delivered.message();
  std::vector<std::string> notes;
  ASSERT_TRUE(FinishPendingSends(*log, notes).ok());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find(path), std::string::npos) << notes[0];
  EXPECT_EQ(log->PendingSends()->size(), 1u);
  EXPECT_EQ(Read(path), planted);  // not overwritten either
  ExpectDeliveredMeansInAFile(*log);

  // Moved out of the way, the next gate command delivers the real message.
  fs::remove(path);
  notes.clear();
  ASSERT_TRUE(FinishPendingSends(*log, notes).ok());
  EXPECT_TRUE(log->PendingSends()->empty());
  EXPECT_EQ(Read(path), OutboxMessage(log->log_id(), send));
  ExpectDeliveredMeansInAFile(*log);
}

TEST_F(Outbox, APlantedFileWithTheMessagesBytesPlusMoreIsRefused) {
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  ASSERT_TRUE(PrepareOutbox(OutboxDir(), *log).ok());
  DecisionRow send = RecordSend(*log, "refund:A-1", OutboxDir());
  const std::string path = OutboxDir() + "/" + OutboxFileName(log->log_id(), send);
  Write(path, OutboxMessage(log->log_id(), send) + "{\"also\": 1}\n");
  EXPECT_FALSE(DeliverToOutbox(*log, send).ok());
  Write(path, OutboxMessage(log->log_id(), send).substr(0, 20));
  EXPECT_FALSE(DeliverToOutbox(*log, send).ok());
  EXPECT_EQ(log->PendingSends()->size(), 1u);
}

TEST_F(Outbox, ASymbolicLinkOrAFifoUnderAMessagesNameIsRefused) {
  // Even to a file with the right bytes: what a link points to can change
  // after the gate has looked.
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  ASSERT_TRUE(PrepareOutbox(OutboxDir(), *log).ok());
  DecisionRow send = RecordSend(*log, "refund:A-1", OutboxDir());
  Write(dir_ + "/elsewhere.json", OutboxMessage(log->log_id(), send));
  const std::string path = OutboxDir() + "/" + OutboxFileName(log->log_id(), send);
  fs::create_symlink(dir_ + "/elsewhere.json", path);
  core::Result<std::string> delivered = DeliverToOutbox(*log, send);
  ASSERT_FALSE(delivered.ok());
  EXPECT_NE(delivered.message().find("symbolic link"), std::string::npos) << delivered.message();
  // A FIFO would block a reader that waits for a writer: refused at once.
  fs::remove(path);
  ASSERT_EQ(mkfifo(path.c_str(), 0644), 0);
  delivered = DeliverToOutbox(*log, send);
  ASSERT_FALSE(delivered.ok());
  EXPECT_NE(delivered.message().find("not a regular file"), std::string::npos) << delivered.message();
  EXPECT_EQ(log->PendingSends()->size(), 1u);
}

TEST_F(Outbox, AnOutboxWithFilesButNoMarkerIsNotClaimed) {
  // An outbox from before markers (send-<id>.json), or anyone's folder.
  fs::create_directories(OutboxDir());
  Write(OutboxDir() + "/send-1.json", "{}\n");
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  core::Status prepared = PrepareOutbox(OutboxDir(), *log);
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.message().find("no .ampoule-outbox"), std::string::npos) << prepared.message();
  EXPECT_NE(prepared.message().find("send-1.json"), std::string::npos) << prepared.message();
  EXPECT_FALSE(fs::exists(OutboxDir() + "/" + kOutboxMarker));

  // Only a temporary left by a killed write: nothing to vouch for, claimed.
  fs::remove(OutboxDir() + "/send-1.json");
  Write(OutboxDir() + "/.send-x.json.1.tmp", "{");
  EXPECT_TRUE(PrepareOutbox(OutboxDir(), *log).ok());
  EXPECT_TRUE(PrepareOutbox(OutboxDir(), *log).ok());  // and again, now its own
}

TEST_F(Outbox, AMarkerThatNamesNoLogIsRefused) {
  std::unique_ptr<DecisionLog> log = Open("gate.db");
  fs::create_directories(OutboxDir());
  for (const std::string& text : {std::string("not json"), std::string("{\"decision_log\": \"abc\"}"),
                                  "{\"ampoule_outbox\": 1, \"decision_log\": \"" + log->log_id().substr(1) + "\"}"}) {
    Write(OutboxDir() + "/" + kOutboxMarker, text);
    core::Status prepared = PrepareOutbox(OutboxDir(), *log);
    ASSERT_FALSE(prepared.ok()) << text;
    EXPECT_NE(prepared.message().find("does not name a decision log"), std::string::npos) << prepared.message();
  }
}

TEST_F(Outbox, OfLogsClaimingANewOutboxAtOnceExactlyOneGetsIt) {
  constexpr int kLogs = 6;
  std::vector<std::unique_ptr<DecisionLog>> logs;
  for (int i = 0; i < kLogs; ++i) logs.push_back(Open("gate" + std::to_string(i) + ".db"));
  std::atomic<int> claimed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kLogs; ++i) {
    threads.emplace_back([&, i] {
      if (PrepareOutbox(OutboxDir(), *logs[i]).ok()) ++claimed;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(claimed.load(), 1);
  EXPECT_EQ(AllFiles(), (std::vector<std::string>{kOutboxMarker}));
}

}  // namespace
}  // namespace ampoule::gate
