// The journal's DenialSink: each denial one "egress-denied" entry with the
// documented payload, under the step's key when the origin is one, under a
// key of its own otherwise; a step denied again keeps its first entry;
// failures are a line on stderr, never an exception; many threads at once.
#include "volent/agent/denial_journal.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace volent::agent {
namespace {

using journal::EntryKind;
using nlohmann::json;

class DenialJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/denial_journal_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto j = journal::Journal::Open(dir_);
    ASSERT_TRUE(j.ok()) << j.message();
    journal_ = std::move(*j);
    sink_ = JournalDenials(*journal_);
  }
  void TearDown() override {
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::vector<journal::Entry> Denials() {
    auto entries = journal_->ReadKind(EntryKind::kEgressDenied, 0, 100000);
    EXPECT_TRUE(entries.ok()) << entries.message();
    return entries.ok() ? *entries : std::vector<journal::Entry>{};
  }

  static egress::Denial Metadata(std::string origin) {
    egress::Denial d;
    d.capability = "web";
    d.method = "GET";
    d.url = "http://169.254.169.254/latest/meta-data/";
    d.reason = "169.254.169.254 is a link-local address";
    d.origin = std::move(origin);
    return d;
  }

  std::string dir_;
  std::unique_ptr<journal::Journal> journal_;
  egress::DenialSink sink_;
};

TEST_F(DenialJournalTest, StepOriginIsTheKeyAndThePayloadIsTheDenial) {
  egress::Denial d = Metadata("refund-bot/order-17/3");
  d.hop = 2;
  sink_(d);
  auto entries = Denials();
  ASSERT_EQ(entries.size(), 1u);
  const journal::Entry& e = entries[0];
  EXPECT_EQ(e.kind, EntryKind::kEgressDenied);
  EXPECT_EQ(e.key, "refund-bot/order-17/3");
  EXPECT_EQ(e.agent, "refund-bot");
  EXPECT_EQ(e.run, "order-17");
  EXPECT_EQ(e.step, 3u);
  EXPECT_EQ(json::parse(e.payload), (json{{"capability", "web"},
                                          {"method", "GET"},
                                          {"url", "http://169.254.169.254/latest/meta-data/"},
                                          {"reason", "169.254.169.254 is a link-local address"},
                                          {"hop", 2},
                                          {"origin", "refund-bot/order-17/3"}}));
  EXPECT_TRUE(journal_->Verify()->ok);
}

TEST_F(DenialJournalTest, ARepeatedDenialOfAStepKeepsTheFirst) {
  sink_(Metadata("a/r/1"));
  egress::Denial again = Metadata("a/r/1");
  again.reason = "another reason";
  sink_(again);
  auto entries = Denials();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(json::parse(entries[0].payload)["reason"], "169.254.169.254 is a link-local address");
  sink_(Metadata("a/r/2"));
  EXPECT_EQ(Denials().size(), 2u);
}

TEST_F(DenialJournalTest, OriginsThatAreNotStepKeysGetKeysOfTheirOwn) {
  const std::vector<std::string> origins = {"",       "model", "a/r",   "a/r/x",       "a/r/07",
                                            "a/r/-1", "a/r/ 1", "a b/r/1", "a/r/1/2", "/r/1",
                                            "a/r/99999999999999999999"};
  for (const std::string& origin : origins) sink_(Metadata(origin));
  auto entries = Denials();
  ASSERT_EQ(entries.size(), origins.size());
  std::set<std::string> keys;
  for (size_t i = 0; i < entries.size(); ++i) {
    const journal::Entry& e = entries[i];
    EXPECT_EQ(e.agent, "egress");
    EXPECT_EQ(e.run, "~denied");
    EXPECT_EQ(e.step, e.seq);  // the entry's own number: unique
    keys.insert(e.key);
    // The origin is kept as it was given, even when it is not a key.
    EXPECT_EQ(json::parse(e.payload)["origin"], origins[i]);
  }
  EXPECT_EQ(keys.size(), origins.size());
  EXPECT_TRUE(journal_->Verify()->ok);
}

TEST_F(DenialJournalTest, KeysOfTheirOwnStayDistinctAcrossRestarts) {
  sink_(Metadata(""));
  sink_(Metadata("a/r/1"));
  journal_.reset();
  auto j = journal::Journal::Open(dir_);
  ASSERT_TRUE(j.ok());
  journal_ = std::move(*j);
  sink_ = JournalDenials(*journal_);
  sink_(Metadata(""));
  auto entries = Denials();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].key, "egress/~denied/1");
  EXPECT_EQ(entries[1].key, "a/r/1");
  EXPECT_EQ(entries[2].key, "egress/~denied/3");
}

TEST_F(DenialJournalTest, InvalidUtf8IsReplacedNotLost) {
  egress::Denial d = Metadata("a/r/1");
  d.url = "http://example.com/\xff\xfe";
  sink_(d);
  auto entries = Denials();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(json::parse(entries[0].payload)["url"], "http://example.com/\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_F(DenialJournalTest, AFailureIsOneLineOnStderr) {
  // The table removed behind the journal's back: every append fails.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE entries", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  egress::Denial d = Metadata("a/r/1");
  d.url = "http://example.com/\nforged line";
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(sink_(d));
  EXPECT_NO_THROW(sink_(Metadata("")));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("an egress denial of GET http://example.com/?forged line was not journaled"),
            std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 2) << err;
}

TEST_F(DenialJournalTest, ManyThreadsAtOnce) {
  constexpr int kThreads = 6;
  constexpr int kEach = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kEach; ++i) {
        // Half with a step of their own, half with none; and every step of
        // thread 0 denied again by thread 1.
        std::string origin = i % 2 ? "" : "a/t" + std::to_string(t) + "/" + std::to_string(i);
        sink_(Metadata(origin));
        if (t == 1 && i % 2 == 0) sink_(Metadata("a/t0/" + std::to_string(i)));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto entries = Denials();
  EXPECT_EQ(entries.size(), static_cast<size_t>(kThreads * kEach));
  std::set<std::string> keys;
  for (const auto& e : entries) keys.insert(e.key);
  EXPECT_EQ(keys.size(), entries.size());
  EXPECT_TRUE(journal_->Verify()->ok);
}

}  // namespace
}  // namespace volent::agent
