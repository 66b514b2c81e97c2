// A sealed tool's requests journaled one by one (ExchangeJournal): each
// before it is sent, its answer when it comes; a re-issued call given the
// answers journaled instead of sending again, sent again when none is, and
// refused a request that is not the one journaled under its number.
#include "volent/sealed/exchange_journal.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

namespace volent::sealed {
namespace {

using journal::EntryKind;
using nlohmann::json;

class ExchangeJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/exchange_journal_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto opened = journal::Journal::Open(dir_);
    ASSERT_TRUE(opened.ok()) << opened.message();
    journal_ = std::move(*opened);
    tool_.name = "move";
    tool_.capability = "tools.data";
  }
  void TearDown() override {
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }
  json Payload(uint64_t number, EntryKind kind) {
    auto entry = journal_->GetForRequest({"clerk", "r1", 4}, number, kind);
    EXPECT_TRUE(entry.ok());
    return entry.ok() && *entry ? json::parse((*entry)->payload) : json();
  }

  std::string dir_;
  std::unique_ptr<journal::Journal> journal_;
  agent::ToolDef tool_;
};

const json kGet = {{"url", "http://internal/payroll"}};
const json kPost = {{"method", "POST"}, {"url", "http://elsewhere/collect"}, {"body", "payroll"}};
const json kOk = {{"status", 200}, {"headers", json::array()}, {"body", "{}"}};

TEST_F(ExchangeJournalTest, EachRequestBeforeItIsSentAndItsAnswerWhenItComes) {
  ExchangeJournal journaled(journal_.get(), tool_, "clerk/r1/4");
  EXPECT_FALSE(journaled.Before(1, kGet));  // send it
  EXPECT_EQ(Payload(1, EntryKind::kToolHttpRequest),
            json({{"tool", "move"}, {"capability", "tools.data"}, {"number", 1}, {"request", kGet}}));
  EXPECT_TRUE(Payload(1, EntryKind::kToolHttpAnswer).is_null());
  EXPECT_EQ(journaled.After(1, kOk), kOk);
  EXPECT_EQ(Payload(1, EntryKind::kToolHttpAnswer), json({{"tool", "move"}, {"number", 1}, {"answer", kOk}}));
  // The POST is on disk before it goes, whatever happens to the call next.
  EXPECT_FALSE(journaled.Before(2, kPost));
  EXPECT_EQ(Payload(2, EntryKind::kToolHttpRequest)["request"], kPost);
}

TEST_F(ExchangeJournalTest, AReissuedCallIsGivenTheJournaledAnswersAndSendsTheRestAgain) {
  {
    ExchangeJournal before_the_crash(journal_.get(), tool_, "clerk/r1/4");
    EXPECT_FALSE(before_the_crash.Before(1, kGet));
    before_the_crash.After(1, kOk);
    EXPECT_FALSE(before_the_crash.Before(2, kPost));  // the node dies while it is sent
  }
  auto count = [&] { return journal_->GetDigest()->entries; };
  const uint64_t entries = count();
  ExchangeJournal again(journal_.get(), tool_, "clerk/r1/4");
  auto given = again.Before(1, kGet);
  ASSERT_TRUE(given);
  EXPECT_EQ(*given, kOk);                 // not sent again
  EXPECT_FALSE(again.Before(2, kPost));   // no answer journaled: sent again, same key
  const json other = {{"status", 201}, {"headers", json::array()}, {"body", ""}};
  EXPECT_EQ(again.After(2, other), other);
  EXPECT_EQ(count(), entries + 1);        // only the POST's answer is new
  // Should another answer come for it (a second process), the first stands.
  EXPECT_EQ(again.After(2, kOk), other);
  EXPECT_EQ(count(), entries + 1);
  EXPECT_TRUE(journal_->Verify()->ok);
}

TEST_F(ExchangeJournalTest, ARequestThatIsNotTheOneJournaledIsNotSent) {
  ExchangeJournal first(journal_.get(), tool_, "clerk/r1/4");
  EXPECT_FALSE(first.Before(1, kGet));
  ExchangeJournal again(journal_.get(), tool_, "clerk/r1/4");
  auto given = again.Before(1, kPost);
  ASSERT_TRUE(given);
  EXPECT_EQ((*given)["error"], "invalid");
  EXPECT_NE((*given)["reason"].get<std::string>().find("journaled as a different request"), std::string::npos);
  EXPECT_EQ(Payload(1, EntryKind::kToolHttpRequest)["request"], kGet);
}

TEST_F(ExchangeJournalTest, WithoutAJournalOrAStepsKeyNothingIsJournaledAndAllIsSent) {
  ExchangeJournal none(nullptr, tool_, "clerk/r1/4");
  EXPECT_FALSE(none.Before(1, kGet));
  EXPECT_EQ(none.After(1, kOk), kOk);
  for (const char* key : {"", "clerk/r1", "clerk/r1/4/http/1", "clerk/r 1/4"}) {
    ExchangeJournal unkeyed(journal_.get(), tool_, key);
    EXPECT_FALSE(unkeyed.Before(1, kGet)) << key;
    EXPECT_EQ(unkeyed.After(1, kOk), kOk) << key;
  }
  EXPECT_EQ(journal_->GetDigest()->entries, 0u);
}

TEST_F(ExchangeJournalTest, BytesThatAreNotUtf8AreJournaledAsTheToolIsGivenThem) {
  ExchangeJournal journaled(journal_.get(), tool_, "clerk/r1/4");
  EXPECT_FALSE(journaled.Before(1, kGet));
  const json hostile = {{"status", 200}, {"headers", json::array({json::array({"x-name", "bad\xff"})})},
                        {"body", "{}"}};
  const json given = journaled.After(1, hostile);
  EXPECT_EQ(given["headers"][0][1], "bad\xef\xbf\xbd");
  EXPECT_EQ(Payload(1, EntryKind::kToolHttpAnswer)["answer"], given);
}

}  // namespace
}  // namespace volent::sealed
