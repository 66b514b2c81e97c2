// The agent loop against a real journal and a fake tool performer: steps
// journaled before and after, replays that never repeat a done step, intents
// re-issued with their recorded request and key, approvals that pause a run,
// survive a restart and are journaled with who decided.
#include "agent/run_manager.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "agent/scripted_model.h"

namespace volent::agent {
namespace {

using journal::EffectKey;
using journal::EntryKind;

nlohmann::json Manifest(const std::string& name, int tools, std::vector<std::string> approval = {}) {
  nlohmann::json list = nlohmann::json::array();
  for (int i = 1; i <= tools; ++i) {
    list.push_back({{"name", "t" + std::to_string(i)},
                    {"kind", "http"},
                    {"capability", "sink"},
                    {"http", {{"method", "POST"}, {"url", "http://127.0.0.1:9/effect/" + name + "/" + std::to_string(i)}}}});
  }
  nlohmann::json spec = {{"model", {{"provider", "anthropic"}, {"name", "scripted"}}}, {"tools", list}};
  if (!approval.empty()) {
    nlohmann::json required = nlohmann::json::array();
    for (const auto& tool : approval) required.push_back("tool:" + tool);
    spec["approval"] = {{"required_for", required}};
  }
  return {{"apiVersion", "volent/v1"}, {"kind", "Agent"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

// Records every call; answers 200 with the key it was given.
struct FakeTools {
  std::mutex mu;
  std::vector<std::pair<std::string, nlohmann::json>> calls;  // (key, request)
  ToolPerformer performer() {
    return [this](const ToolDef& tool, const nlohmann::json& request, const std::string& key) {
      std::lock_guard lock(mu);
      calls.emplace_back(key, request);
      return nlohmann::json{{"type", "tool"}, {"tool", tool.name}, {"outcome", "answered"}, {"status", 200}};
    };
  }
  size_t count() {
    std::lock_guard lock(mu);
    return calls.size();
  }
};

class RunManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/run_manager_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto store = node::AgentStore::Open("");
    ASSERT_TRUE(store.ok()) << store.message();
    store_ = std::move(*store);
    OpenJournal();
  }
  void TearDown() override {
    manager_.reset();
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }
  void OpenJournal() {
    auto journal = journal::Journal::Open(dir_);
    ASSERT_TRUE(journal.ok()) << journal.message();
    journal_ = std::move(*journal);
  }
  void Apply(const nlohmann::json& manifest) {
    auto applied = store_->Apply(manifest["metadata"]["name"], manifest.dump());
    ASSERT_TRUE(applied.ok()) << applied.message();
  }
  void StartManager() {
    auto manager = RunManager::Start(*journal_, *store_, tools_.performer(), {.threads = 4});
    ASSERT_TRUE(manager.ok()) << manager.message();
    manager_ = std::move(*manager);
  }
  // Stops the manager and reopens the journal, as a restarted node would.
  void Restart() {
    manager_.reset();
    journal_.reset();
    OpenJournal();
    StartManager();
  }
  RunView Run(const std::string& agent, const std::string& id) {
    auto run = manager_->GetRun(agent, id);
    EXPECT_TRUE(run.ok()) << run.message;
    return run.value;
  }

  std::string dir_;
  std::unique_ptr<node::AgentStore> store_;
  std::unique_ptr<journal::Journal> journal_;
  std::unique_ptr<RunManager> manager_;
  FakeTools tools_;
};

TEST_F(RunManagerTest, RunsEachToolOnceWithItsKeyAndFinishes) {
  Apply(Manifest("alpha", 2));
  StartManager();
  auto started = manager_->StartRun("alpha", "r1", {{"order", "A-1"}});
  ASSERT_TRUE(started.ok()) << started.message;
  EXPECT_TRUE(started.value.created);
  manager_->WaitIdle();

  RunView run = Run("alpha", "r1");
  EXPECT_EQ(run.status, "finished");
  EXPECT_EQ(run.steps_done, 5u);  // model, t1, model, t2, model
  EXPECT_EQ(run.output["text"], "called 2 tool(s)");
  ASSERT_EQ(tools_.count(), 2u);
  EXPECT_EQ(tools_.calls[0].first, "alpha/r1/2");
  EXPECT_EQ(tools_.calls[0].second["url"], "http://127.0.0.1:9/effect/alpha/1");
  EXPECT_EQ(tools_.calls[0].second["arguments"]["order"], "A-1");
  EXPECT_EQ(tools_.calls[1].first, "alpha/r1/4");

  // Every tool step has its intent before its completion, and the chain holds.
  auto intent = journal_->Lookup({"alpha", "r1", 2});
  ASSERT_TRUE(intent.ok());
  ASSERT_TRUE(intent->intent && intent->completion);
  EXPECT_LT(intent->intent->seq, intent->completion->seq);
  auto report = journal_->Verify();
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok) << report->problem;
}

TEST_F(RunManagerTest, StartingARunTwiceWithOneIdStartsItOnce) {
  Apply(Manifest("alpha", 1));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("alpha", "same", {}).value.created);
  manager_->WaitIdle();
  auto again = manager_->StartRun("alpha", "same", {{"other", 1}});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again.value.created);
  EXPECT_EQ(again.value.run.input, nlohmann::json::object());
  manager_->WaitIdle();
  EXPECT_EQ(tools_.count(), 1u);
  // And after a restart too.
  Restart();
  auto after = manager_->StartRun("alpha", "same", {});
  EXPECT_FALSE(after.value.created);
  manager_->WaitIdle();
  EXPECT_EQ(tools_.count(), 1u);
}

TEST_F(RunManagerTest, RefusesBadNamesUnknownAgentsAndPicksIds) {
  StartManager();
  EXPECT_EQ(manager_->StartRun("Not_Valid", "r", {}).refusal, Refusal::kInvalid);
  EXPECT_EQ(manager_->StartRun("ghost", "r", {}).refusal, Refusal::kNotFound);
  Apply(Manifest("alpha", 0));
  EXPECT_EQ(manager_->StartRun("alpha", "bad id", {}).refusal, Refusal::kInvalid);
  EXPECT_EQ(manager_->StartRun("alpha", std::string(65, 'r'), {}).refusal, Refusal::kInvalid);
  auto picked = manager_->StartRun("alpha", "", {});
  ASSERT_TRUE(picked.ok());
  EXPECT_EQ(picked.value.run.id.rfind("run-", 0), 0u);
  EXPECT_EQ(manager_->GetRun("alpha", "nope").refusal, Refusal::kNotFound);
}

TEST_F(RunManagerTest, AfterARestartAnIntentIsReissuedWithItsRecordedRequestAndKey) {
  nlohmann::json manifest = Manifest("alpha", 2);
  Apply(manifest);
  // What a node that died after sending step 2 (before its completion) leaves.
  ASSERT_TRUE(journal_->Append(EntryKind::kRunStarted, {"alpha", "r1", 0},
                               {{"input", {{"n", 1}}}, {"manifest", manifest}}).ok());
  AgentSpec spec = ReadAgentSpec(manifest);
  nlohmann::json turn0 = ScriptedModelTurn(spec, {{"n", 1}}, 0, nlohmann::json::array());
  ASSERT_TRUE(journal_->BeginEffect({"alpha", "r1", 1}, {{"type", "model"}}).ok());
  ASSERT_TRUE(journal_->CompleteEffect({"alpha", "r1", 1}, turn0).ok());
  nlohmann::json recorded = ToolRequest(spec.tools[0], {{"n", 1}});
  recorded["recorded"] = true;
  ASSERT_TRUE(journal_->BeginEffect({"alpha", "r1", 2}, recorded).ok());

  StartManager();
  manager_->WaitIdle();
  RunView run = Run("alpha", "r1");
  EXPECT_EQ(run.status, "finished");
  ASSERT_EQ(tools_.count(), 2u);
  EXPECT_EQ(tools_.calls[0].first, "alpha/r1/2");
  EXPECT_EQ(tools_.calls[0].second["recorded"], true);  // the first request, not a new one
  EXPECT_EQ(tools_.calls[1].first, "alpha/r1/4");
}

TEST_F(RunManagerTest, ADoneStepIsNeverRepeated) {
  Apply(Manifest("alpha", 2));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("alpha", "r1", {}).ok());
  manager_->WaitIdle();
  ASSERT_EQ(tools_.count(), 2u);
  // Forget that the run finished (as if the node died before run-finished
  // was written) by replaying it in a fresh journal copy: every step is done.
  Restart();
  manager_->WaitIdle();
  EXPECT_EQ(tools_.count(), 2u);
  EXPECT_EQ(Run("alpha", "r1").status, "finished");
  EXPECT_EQ(Run("alpha", "r1").steps_done, 5u);
}

TEST_F(RunManagerTest, ARunWaitsForApprovalThenPerformsTheApprovedCall) {
  Apply(Manifest("pay", 2, {"t2"}));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("pay", "r1", {{"amount", 5}}).ok());
  manager_->WaitIdle();
  EXPECT_EQ(Run("pay", "r1").status, "waiting-approval");
  EXPECT_EQ(tools_.count(), 1u);  // t1 only
  auto pending = manager_->ListApprovals(true);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].tool, "t2");
  EXPECT_EQ(pending[0].step, 4u);
  EXPECT_EQ(pending[0].arguments["amount"], 5);

  auto decided = manager_->Decide(pending[0].id, true, "alice@example.com", "checked the order");
  ASSERT_TRUE(decided.ok()) << decided.message;
  EXPECT_EQ(decided.value.decision, "approved");
  EXPECT_EQ(decided.value.by, "alice@example.com");
  EXPECT_GT(decided.value.decided_ms, 0);
  manager_->WaitIdle();
  EXPECT_EQ(Run("pay", "r1").status, "finished");
  ASSERT_EQ(tools_.count(), 2u);
  EXPECT_EQ(tools_.calls[1].first, "pay/r1/4");
  EXPECT_TRUE(manager_->ListApprovals(true).empty());

  // The decision, who made it and when, are in the journal.
  auto entry = journal_->Get({"pay", "r1", 4}, EntryKind::kApprovalDecided);
  ASSERT_TRUE(entry.ok() && *entry);
  auto payload = nlohmann::json::parse((*entry)->payload);
  EXPECT_EQ(payload["decision"], "approved");
  EXPECT_EQ(payload["by"], "alice@example.com");
  EXPECT_GT((*entry)->time_ms, 0);

  auto twice = manager_->Decide(pending[0].id, false, "bob", "");
  EXPECT_EQ(twice.refusal, Refusal::kConflict);
  EXPECT_NE(twice.message.find("alice@example.com"), std::string::npos);
}

TEST_F(RunManagerTest, ADeniedCallIsNotPerformedAndTheModelIsTold) {
  Apply(Manifest("pay", 1, {"t1"}));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("pay", "r1", {}).ok());
  manager_->WaitIdle();
  auto pending = manager_->ListApprovals(true);
  ASSERT_EQ(pending.size(), 1u);
  ASSERT_TRUE(manager_->Decide(pending[0].id, false, "bob", "too much").ok());
  manager_->WaitIdle();
  RunView run = Run("pay", "r1");
  EXPECT_EQ(run.status, "finished");
  EXPECT_EQ(run.output["results"][0]["outcome"], "denied-by-approver");
  EXPECT_EQ(tools_.count(), 0u);
}

TEST_F(RunManagerTest, APendingApprovalSurvivesARestart) {
  Apply(Manifest("pay", 1, {"t1"}));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("pay", "r1", {}).ok());
  manager_->WaitIdle();
  Restart();
  manager_->WaitIdle();
  auto pending = manager_->ListApprovals(true);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(Run("pay", "r1").status, "waiting-approval");
  ASSERT_TRUE(manager_->Decide(pending[0].id, true, "carol", "").ok());
  manager_->WaitIdle();
  EXPECT_EQ(Run("pay", "r1").status, "finished");
  EXPECT_EQ(tools_.count(), 1u);
  // And the decision survives the next one.
  Restart();
  auto all = manager_->ListApprovals(false);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].decision, "approved");
  EXPECT_EQ(all[0].by, "carol");
}

TEST_F(RunManagerTest, DecisionsNeedAKnownIdAndADecider) {
  StartManager();
  EXPECT_EQ(manager_->Decide("12345", true, "alice", "").refusal, Refusal::kNotFound);
  EXPECT_EQ(manager_->Decide("x", true, "alice", "").refusal, Refusal::kNotFound);
  EXPECT_EQ(manager_->Decide("1", true, "", "").refusal, Refusal::kInvalid);
  EXPECT_EQ(manager_->Decide("1", true, "a\nb", "").refusal, Refusal::kInvalid);
  EXPECT_EQ(manager_->Decide("1", true, std::string(201, 'a'), "").refusal, Refusal::kInvalid);
}

TEST_F(RunManagerTest, ListsRunsNewestFirstPerAgent) {
  Apply(Manifest("alpha", 0));
  Apply(Manifest("beta", 0));
  StartManager();
  for (const char* id : {"a1", "a2"}) ASSERT_TRUE(manager_->StartRun("alpha", id, {}).ok());
  ASSERT_TRUE(manager_->StartRun("beta", "b1", {}).ok());
  manager_->WaitIdle();
  EXPECT_EQ(manager_->ListRuns("", 10).size(), 3u);
  auto alpha = manager_->ListRuns("alpha", 10);
  ASSERT_EQ(alpha.size(), 2u);
  EXPECT_GE(alpha[0].started_ms, alpha[1].started_ms);
  EXPECT_EQ(manager_->ListRuns("", 1).size(), 1u);
  for (const auto& run : manager_->ListRuns("", 10)) EXPECT_EQ(run.status, "finished");
}

TEST_F(RunManagerTest, ARunKeepsTheManifestItStartedWith) {
  Apply(Manifest("pay", 1, {"t1"}));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("pay", "r1", {}).ok());
  manager_->WaitIdle();
  ASSERT_TRUE(store_->Delete("pay").ok());
  Restart();
  auto pending = manager_->ListApprovals(true);
  ASSERT_EQ(pending.size(), 1u);
  ASSERT_TRUE(manager_->Decide(pending[0].id, true, "alice", "").ok());
  manager_->WaitIdle();
  EXPECT_EQ(Run("pay", "r1").status, "finished");
  EXPECT_EQ(tools_.count(), 1u);
}

}  // namespace
}  // namespace volent::agent
