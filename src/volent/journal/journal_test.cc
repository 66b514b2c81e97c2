// The journal's effect semantics: begin, complete, lookup, duplicates,
// pending effects after a reopen, digests, other kinds, and key rules.
#include "volent/journal/journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace volent::journal {
namespace {

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/journal_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Journal> OpenJournal() {
    OpenOptions options;
    options.clock = [this] { return now_++; };
    auto j = Journal::Open(dir_, options);
    EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.message());
    return j.ok() ? std::move(*j) : nullptr;
  }

  std::string dir_;
  int64_t now_ = 1764470000000;
};

const EffectKey kKey{"refund", "run-1", 3};

TEST_F(JournalTest, BeginThenCompleteThenBeginIsDone) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto begin = j->BeginEffect(kKey, {{"url", "https://erp.internal/refund"}});
  ASSERT_TRUE(begin.ok()) << begin.message();
  EXPECT_EQ(begin->outcome, BeginOutcome::kFresh);
  EXPECT_EQ(begin->intent.seq, 1u);
  EXPECT_EQ(begin->intent.key, "refund/run-1/3");
  EXPECT_EQ(begin->intent.payload, R"({"url":"https://erp.internal/refund"})");
  EXPECT_EQ(begin->intent.prev_hash, kGenesisHash);
  EXPECT_EQ(begin->intent.time_ms, 1764470000000);
  EXPECT_EQ(begin->intent.hash, EntryHash(begin->intent));

  auto done = j->CompleteEffect(kKey, {{"status", 200}});
  ASSERT_TRUE(done.ok()) << done.message();
  EXPECT_FALSE(done->already_done);
  EXPECT_EQ(done->completion.seq, 2u);
  EXPECT_EQ(done->completion.prev_hash, begin->intent.hash);

  auto again = j->BeginEffect(kKey, {{"url", "ignored"}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, BeginOutcome::kDone);
  ASSERT_TRUE(again->completion.has_value());
  EXPECT_EQ(again->completion->payload, R"({"status":200})");
  EXPECT_EQ(again->intent.payload, R"({"url":"https://erp.internal/refund"})");
}

TEST_F(JournalTest, SecondBeginWithoutCompletionMeansReissue) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  ASSERT_EQ(j->BeginEffect(kKey, {{"n", 1}})->outcome, BeginOutcome::kFresh);
  auto second = j->BeginEffect(kKey, {{"n", 2}});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->outcome, BeginOutcome::kAlreadyIntended);
  EXPECT_EQ(second->intent.payload, R"({"n":1})");  // the first request stands
  EXPECT_EQ(j->GetDigest()->entries, 1u);
}

TEST_F(JournalTest, SecondCompletionIsRefusedWithTheFirstResult) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->BeginEffect(kKey, nullptr).ok());
  ASSERT_TRUE(j->CompleteEffect(kKey, "first").ok());
  auto second = j->CompleteEffect(kKey, "second");
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->already_done);
  EXPECT_EQ(second->completion.payload, R"("first")");
  EXPECT_EQ(j->GetDigest()->entries, 2u);
}

TEST_F(JournalTest, CompletionWithoutIntentIsAnError) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto done = j->CompleteEffect(kKey, 1);
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.message().find("no intent is journaled for refund/run-1/3"), std::string::npos);
  EXPECT_EQ(j->GetDigest()->entries, 0u);
}

TEST_F(JournalTest, LookupReportsEachState) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto none = j->Lookup(kKey);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->intent || none->completion);
  ASSERT_TRUE(j->BeginEffect(kKey, 1).ok());
  auto intended = j->Lookup(kKey);
  EXPECT_TRUE(intended->intent && !intended->completion);
  ASSERT_TRUE(j->CompleteEffect(kKey, 2).ok());
  auto done = j->Lookup(kKey);
  EXPECT_TRUE(done->intent && done->completion);
  EXPECT_EQ(done->completion->payload, "2");
}

TEST_F(JournalTest, PendingEffectsSurviveReopen) {
  {
    auto j = OpenJournal();
    ASSERT_TRUE(j);
    for (uint64_t step = 1; step <= 4; ++step) {
      ASSERT_TRUE(j->BeginEffect({"a", "r", step}, {{"step", step}}).ok());
    }
    ASSERT_TRUE(j->CompleteEffect({"a", "r", 1}, "ok").ok());
    ASSERT_TRUE(j->CompleteEffect({"a", "r", 3}, "ok").ok());
  }
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto pending = j->PendingEffects();
  ASSERT_TRUE(pending.ok()) << pending.message();
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[0].key, "a/r/2");
  EXPECT_EQ((*pending)[1].key, "a/r/4");
  EXPECT_EQ(j->BeginEffect({"a", "r", 2}, "x")->outcome, BeginOutcome::kAlreadyIntended);
  EXPECT_EQ(j->BeginEffect({"a", "r", 3}, "x")->outcome, BeginOutcome::kDone);
}

TEST_F(JournalTest, DigestIsStableAcrossReopenAndChangesOnAppend) {
  Digest before;
  {
    auto j = OpenJournal();
    ASSERT_TRUE(j);
    auto empty = j->GetDigest();
    EXPECT_EQ(empty->entries, 0u);
    EXPECT_EQ(empty->head, kGenesisHash);
    ASSERT_TRUE(j->BeginEffect(kKey, 1).ok());
    ASSERT_TRUE(j->CompleteEffect(kKey, 2).ok());
    before = *j->GetDigest();
  }
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto after = j->GetDigest();
  EXPECT_EQ(after->entries, 2u);
  EXPECT_EQ(after->head, before.head);
  EXPECT_EQ(after->ToString(), "sha256:" + before.head);
  ASSERT_TRUE(j->BeginEffect({"refund", "run-1", 4}, 1).ok());
  EXPECT_NE(j->GetDigest()->head, before.head);
  auto report = j->Verify(before.ToString());
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok) << report->problem;  // an earlier digest is a prefix
}

TEST_F(JournalTest, OtherKindsAppendOncePerKey) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  auto asked = j->Append(EntryKind::kApprovalRequested, kKey, {{"tool", "refund"}});
  ASSERT_TRUE(asked.ok()) << asked.message();
  EXPECT_FALSE(asked->already_recorded);
  auto again = j->Append(EntryKind::kApprovalRequested, kKey, {{"tool", "other"}});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_recorded);
  EXPECT_EQ(again->entry.payload, R"({"tool":"refund"})");
  EXPECT_TRUE(j->Append(EntryKind::kApprovalDecided, kKey, {{"by", "ops"}, {"approve", true}}).ok());
  EXPECT_TRUE(j->Append(EntryKind::kRunStarted, {"refund", "run-1", 0}, nullptr).ok());
  EXPECT_FALSE(j->Append(EntryKind::kIntent, kKey, 1).ok());
  auto entries = j->Read(0, 100);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ(KindName((*entries)[1].kind), "approval-decided");
  auto page = j->Read(2, 1);
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ((*page)[0].seq, 3u);
  EXPECT_TRUE(j->Verify()->ok);
}

TEST_F(JournalTest, BadKeysAreRefused) {
  auto j = OpenJournal();
  ASSERT_TRUE(j);
  EXPECT_FALSE(j->BeginEffect({"", "r", 1}, 1).ok());
  EXPECT_FALSE(j->BeginEffect({"a/b", "r", 1}, 1).ok());
  EXPECT_FALSE(j->BeginEffect({"a", "r r", 1}, 1).ok());
  EXPECT_FALSE(j->BeginEffect({"a", std::string(kMaxKeyPartLength + 1, 'x'), 1}, 1).ok());
  EXPECT_FALSE(j->BeginEffect({"a", "r", kMaxStep + 1}, 1).ok());
  EXPECT_TRUE(j->BeginEffect({"a", "r", kMaxStep}, 1).ok());
  // Invalid UTF-8 in a payload string is an error value, not an exception.
  EXPECT_FALSE(j->BeginEffect({"a", "r", 2}, std::string("\xff\xfe")).ok());
  EXPECT_EQ(j->GetDigest()->entries, 1u);
}

TEST_F(JournalTest, OpenWithoutCreateNeedsAJournal) {
  OpenOptions options;
  options.create = false;
  auto missing = Journal::Open(dir_, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("journal.db"), std::string::npos);
  EXPECT_FALSE(Journal::Open(dir_ + "/no-such-folder").ok());
}

TEST(EntryKindTest, NamesRoundTrip) {
  for (size_t i = 0; i < kKindCount; ++i) {
    const auto kind = static_cast<EntryKind>(i);
    EXPECT_EQ(ParseKind(KindName(kind)), kind);
  }
  // The stored names; a change here breaks every journal written before.
  EXPECT_EQ(KindName(EntryKind::kIntent), "intent");
  EXPECT_EQ(KindName(EntryKind::kRunFinished), "run-finished");
  EXPECT_EQ(KindName(EntryKind::kEgressDenied), "egress-denied");
  EXPECT_FALSE(ParseKind("Intent").has_value());
}

// A fixed entry's hash, computed by hand from the encoding of docs/journal.md
// (python3: hashlib.sha256 over the length-prefixed fields). A change here
// is a format change.
TEST(EntryHashTest, MatchesTheDocumentedEncoding) {
  Entry e;
  e.seq = 1;
  e.kind = EntryKind::kIntent;
  e.agent = "refund";
  e.run = "run-1";
  e.step = 3;
  e.key = "refund/run-1/3";
  e.payload = R"({"amount":42})";
  e.time_ms = 1764470000000;
  e.prev_hash = std::string(kGenesisHash);
  EXPECT_EQ(EntryHash(e), "e06bbeea882d0cf88a018733232571db916bc8072f1eeb0b8ae212a681dcf1fe");
}

}  // namespace
}  // namespace volent::journal
