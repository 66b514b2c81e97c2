#include "volent/store/agent_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace volent::store {
namespace {

class AgentStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agent_store_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A short busy timeout: FailedWriteLeavesTheViewUnchanged waits it out
  // three times on purpose.
  std::unique_ptr<AgentStore> Open(const AgentStore::Recheck& recheck = nullptr) {
    auto store = AgentStore::Open(dir_, recheck, /*busy_timeout_ms=*/200);
    EXPECT_TRUE(store.ok()) << (store.ok() ? "" : store.message());
    return store.ok() ? std::move(*store) : nullptr;
  }

  std::string dir_;
};

TEST_F(AgentStoreTest, ApplyCreatesThenReplacesWithGrowingGeneration) {
  auto store = Open();
  auto first = store->Apply("a", R"({"v":1})");
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->created);
  EXPECT_EQ(first->summary.generation, 1u);
  auto second = store->Apply("a", R"({"v":2})");
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->created);
  EXPECT_EQ(second->summary.generation, 2u);
  auto got = store->Get("a");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->manifest_json, R"({"v":2})");
  EXPECT_EQ(got->summary.generation, 2u);
  EXPECT_EQ(got->summary.status, AgentStatus::kIdle);
  EXPECT_EQ(got->summary.applied_at.size(), 20u);
  EXPECT_EQ(got->summary.applied_at.back(), 'Z');
  EXPECT_EQ(store->size(), 1u);
}

TEST_F(AgentStoreTest, SurvivesReopen) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Apply("one", R"({"n":1})").ok());
    ASSERT_TRUE(store->Apply("two", R"({"n":2})").ok());
    ASSERT_TRUE(store->Apply("two", R"({"n":22})").ok());
    ASSERT_TRUE(store->Apply("three", R"({"n":3})").ok());
    ASSERT_TRUE(store->Delete("three").ok());
  }
  auto store = Open();
  EXPECT_EQ(store->size(), 2u);
  EXPECT_EQ(store->Get("one")->manifest_json, R"({"n":1})");
  EXPECT_EQ(store->Get("two")->manifest_json, R"({"n":22})");
  EXPECT_EQ(store->Get("two")->summary.generation, 2u);
  EXPECT_FALSE(store->Get("three"));
  // Generations continue from the stored ones.
  EXPECT_EQ(store->Apply("two", "{}")->summary.generation, 3u);
}

TEST_F(AgentStoreTest, RecheckMarksRejectedAndKeepsThem) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Apply("good", R"({"ok":true})").ok());
    ASSERT_TRUE(store->Apply("bad", R"({"ok":false})").ok());
  }
  auto store = Open([](std::string_view, std::string_view json) { return json == R"({"ok":true})"; });
  EXPECT_EQ(store->size(), 2u);
  EXPECT_EQ(store->Get("good")->summary.status, AgentStatus::kIdle);
  EXPECT_EQ(store->Get("bad")->summary.status, AgentStatus::kRejected);
  EXPECT_EQ(AgentStatusName(AgentStatus::kRejected), "rejected");
  // Replacing a rejected agent makes it idle again.
  ASSERT_TRUE(store->Apply("bad", R"({"ok":true})").ok());
  EXPECT_EQ(store->Get("bad")->summary.status, AgentStatus::kIdle);
}

TEST_F(AgentStoreTest, DeleteReportsWhetherThereWasOne) {
  auto store = Open();
  ASSERT_TRUE(store->Apply("x", "{}").ok());
  auto deleted = store->Delete("x");
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  auto again = store->Delete("x");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(store->size(), 0u);
}

TEST_F(AgentStoreTest, ListPagesByName) {
  auto store = Open();
  for (int i = 0; i < 25; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "a%02d", i);
    ASSERT_TRUE(store->Apply(name, "{}").ok());
  }
  std::vector<std::string> seen;
  std::string after;
  int pages = 0;
  while (true) {
    AgentPage page = store->List(after, 10);
    ++pages;
    for (const auto& s : page.agents) seen.push_back(s.name);
    if (!page.next) break;
    after = *page.next;
  }
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(seen.size(), 25u);
  EXPECT_EQ(seen.front(), "a00");
  EXPECT_EQ(seen.back(), "a24");
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  // Exactly a page's worth at the end: no next.
  EXPECT_FALSE(store->List("a14", 10).next);
  EXPECT_TRUE(store->List("zzz", 10).agents.empty());
}

TEST_F(AgentStoreTest, FailedWriteLeavesTheViewUnchanged) {
  auto store = Open();
  ASSERT_TRUE(store->Apply("keep", R"({"v":1})").ok());
  ASSERT_TRUE(store->Apply("gone", R"({"v":1})").ok());
  // Another connection holds the write lock: every write of the store fails.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/agents.db").c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_FALSE(store->Apply("keep", R"({"v":2})").ok());
  EXPECT_FALSE(store->Apply("new", R"({"v":1})").ok());
  EXPECT_FALSE(store->Delete("gone").ok());
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_EQ(store->Get("keep")->manifest_json, R"({"v":1})");
  EXPECT_EQ(store->Get("keep")->summary.generation, 1u);
  EXPECT_FALSE(store->Get("new"));
  EXPECT_TRUE(store->Get("gone"));
  // And the disk agrees.
  store.reset();
  auto reopened = Open();
  EXPECT_EQ(reopened->Get("keep")->manifest_json, R"({"v":1})");
  EXPECT_FALSE(reopened->Get("new"));
  EXPECT_TRUE(reopened->Get("gone"));
}

TEST_F(AgentStoreTest, InMemoryWithoutADirectory) {
  auto store = AgentStore::Open("");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Apply("m", "{}").ok());
  EXPECT_EQ((*store)->size(), 1u);
}

TEST_F(AgentStoreTest, ManyAgentsStayCompact) {
  auto store = Open();
  // 300 in one go is enough to see the per-agent cost is not pathological.
  std::string manifest(1500, 'x');
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(store->Apply("agent-" + std::to_string(i), "\"" + manifest + "\"").ok());
  EXPECT_EQ(store->size(), 300u);
  EXPECT_EQ(store->List("", 1000).agents.size(), 300u);
}

}  // namespace
}  // namespace volent::store
