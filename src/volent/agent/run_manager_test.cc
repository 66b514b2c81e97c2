// The agent loop against a real journal, a fake asynchronous model and a
// fake tool performer: steps journaled before and after, replays that never
// repeat a done step, intents re-issued with their recorded request and key,
// approvals that pause a run, survive a restart and are journaled with who
// decided; model errors and budgets that end a run as failed; tool-call ids
// echoed back; and many calls in flight at once on a few workers.
#include "volent/agent/run_manager.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

namespace volent::agent {
namespace {

using journal::EffectKey;
using journal::EntryKind;
using nlohmann::json;

json Manifest(const std::string& name, int tools, std::vector<std::string> approval = {}, int max_calls = 0) {
  json list = json::array();
  for (int i = 1; i <= tools; ++i) {
    list.push_back({{"name", "t" + std::to_string(i)},
                    {"kind", "http"},
                    {"capability", "sink"},
                    {"http", {{"method", "POST"}, {"url", "http://127.0.0.1:9/effect/" + name + "/" + std::to_string(i)}}}});
  }
  json model = {{"provider", "anthropic"}, {"name", "fake"}, {"capability", "model.fake"}};
  if (max_calls > 0) model["budget"] = {{"max_calls_per_run", max_calls}};
  json spec = {{"instructions", "Call every tool once."}, {"model", model}, {"tools", list}};
  if (!approval.empty()) {
    json required = json::array();
    for (const auto& tool : approval) required.push_back("tool:" + tool);
    spec["approval"] = {{"required_for", required}};
  }
  return {{"apiVersion", "volent/v1"}, {"kind", "Agent"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

model::Answer ToolAnswer(std::vector<model::ToolCall> calls) {
  model::Answer answer;
  answer.tool_calls = std::move(calls);
  answer.stop = model::StopReason::kToolUse;
  answer.stop_detail = "tool_use";
  return answer;
}

model::Answer TextAnswer(std::string text) {
  model::Answer answer;
  answer.text = std::move(text);
  answer.stop = model::StopReason::kEnd;
  answer.stop_detail = "end_turn";
  return answer;
}

// The plan of a deterministic model, read from the journaled request's
// Anthropic body: call each tool offered once, in order, one per answer,
// with the first user message (the run's input) as the arguments; then
// answer "called N tool(s)". Tool-call ids name the turn: "call-N".
json PlanAnswer(const json& request) {
  const json& body = request.at("body");
  size_t results = 0;
  for (const auto& message : body.at("messages")) {
    if (message.at("role") != "user" || !message.at("content").is_array()) continue;
    for (const auto& block : message.at("content")) results += block.value("type", "") == "tool_result";
  }
  const json tools = body.value("tools", json::array());
  if (results < tools.size()) {
    json arguments = json::parse(body["messages"][0]["content"].get<std::string>());
    return AnsweredCompletion(
        ToolAnswer({{"call-" + std::to_string(results), tools[results]["name"].get<std::string>(), arguments}}), "");
  }
  return AnsweredCompletion(TextAnswer("called " + std::to_string(results) + " tool(s)"), "");
}

// A model that answers on a thread of its own (as the gate's I/O threads
// do), from `answer` (the plan unless a test replaces it). While `hold` is
// set, calls are kept in flight unanswered.
class FakeModel {
 public:
  std::function<json(const json& request)> answer = PlanAnswer;

  FakeModel() : thread_([this] { Loop(); }) {}
  ~FakeModel() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      hold_ = false;
    }
    cv_.notify_all();
    thread_.join();
  }
  ModelPerformer performer() {
    return [this](const json& request, const std::string& key, StepDone done) {
      std::lock_guard lock(mu_);
      requests_.emplace_back(key, request);
      queue_.push_back({request, std::move(done)});
      cv_.notify_all();
    };
  }
  void Hold(bool hold) {
    std::lock_guard lock(mu_);
    hold_ = hold;
    cv_.notify_all();
  }
  // Waits (bounded) until `n` calls are held unanswered.
  bool WaitHeld(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return queue_.size() >= n; });
  }
  std::vector<std::pair<std::string, json>> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || (!hold_ && !queue_.empty()); });
      if (queue_.empty()) return;  // stopping
      auto [request, done] = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      done(answer(request));
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<json, StepDone>> queue_;
  std::vector<std::pair<std::string, json>> requests_;  // (key, journaled request)
  bool hold_ = false;
  bool stop_ = false;
  std::thread thread_;
};

// Records every call; answers 200 at once, on the caller's thread (as the
// gate does when it refuses before any I/O).
struct FakeTools {
  std::mutex mu;
  std::vector<std::pair<std::string, json>> calls;  // (key, request)
  json completion;  // what every call completes with; null: answered, status 200
  ToolPerformer performer() {
    return [this](const ToolDef& tool, const json& request, const std::string& key, StepDone done) {
      json result;
      {
        std::lock_guard lock(mu);
        calls.emplace_back(key, request);
        result = completion;
      }
      if (result.is_null()) result = {{"type", "tool"}, {"tool", tool.name}, {"outcome", "answered"}, {"status", 200}};
      done(std::move(result));
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
    auto store = store::AgentStore::Open("");
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
  void Apply(const json& manifest) {
    auto applied = store_->Apply(manifest["metadata"]["name"], manifest.dump());
    ASSERT_TRUE(applied.ok()) << applied.message();
  }
  void StartManager() {
    auto manager = RunManager::Start(*journal_, *store_, tools_.performer(), model_.performer(), {.threads = 4});
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
    EXPECT_TRUE(run.ok()) << run.message();
    return run.value();
  }

  std::string dir_;
  std::unique_ptr<store::AgentStore> store_;
  std::unique_ptr<journal::Journal> journal_;
  FakeTools tools_;
  FakeModel model_;
  std::unique_ptr<RunManager> manager_;  // destroyed first: its performers' referents outlive it
};

TEST_F(RunManagerTest, RunsEachToolOnceWithItsKeyAndFinishes) {
  Apply(Manifest("alpha", 2));
  StartManager();
  auto started = manager_->StartRun("alpha", "r1", {{"order", "A-1"}});
  ASSERT_TRUE(started.ok()) << started.message();
  EXPECT_TRUE(started->created);
  manager_->WaitIdle();

  RunView run = Run("alpha", "r1");
  EXPECT_EQ(run.status, RunStatus::kFinished);
  EXPECT_EQ(run.steps_done, 5u);  // model, t1, model, t2, model
  EXPECT_EQ(run.output["text"], "called 2 tool(s)");
  ASSERT_EQ(tools_.count(), 2u);
  EXPECT_EQ(tools_.calls[0].first, "alpha/r1/2");
  EXPECT_EQ(tools_.calls[0].second["url"], "http://127.0.0.1:9/effect/alpha/1");
  EXPECT_EQ(tools_.calls[0].second["arguments"]["order"], "A-1");
  EXPECT_EQ(tools_.calls[1].first, "alpha/r1/4");
  // The model calls are steps 1, 3 and 5, each journaled as the request
  // sent: the instructions, the input as JSON text, the tools offered.
  auto asked = model_.requests();
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked[0].first, "alpha/r1/1");
  EXPECT_EQ(asked[2].first, "alpha/r1/5");
  const json& body = asked[0].second["body"];
  EXPECT_EQ(body["system"], "Call every tool once.");
  EXPECT_EQ(body["messages"][0]["content"], "{\"order\":\"A-1\"}");
  EXPECT_EQ(body["tools"].size(), 2u);
  EXPECT_EQ(body["tools"][0]["input_schema"], json({{"type", "object"}}));
  EXPECT_EQ(asked[0].second["headers"]["Idempotency-Key"], "alpha/r1/1");
  auto model_step = journal_->Lookup({"alpha", "r1", 5});
  ASSERT_TRUE(model_step.ok() && model_step->intent && model_step->completion);
  EXPECT_EQ(json::parse(model_step->intent->payload), asked[2].second);
  EXPECT_EQ(json::parse(model_step->completion->payload)["outcome"], "answered");
  EXPECT_EQ(run.output["stop"], "end");

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
  ASSERT_TRUE(manager_->StartRun("alpha", "same", {})->created);
  manager_->WaitIdle();
  auto again = manager_->StartRun("alpha", "same", {{"other", 1}});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->run.input, json::object());
  manager_->WaitIdle();
  EXPECT_EQ(tools_.count(), 1u);
  // And after a restart too.
  Restart();
  auto after = manager_->StartRun("alpha", "same", {});
  EXPECT_FALSE(after->created);
  manager_->WaitIdle();
  EXPECT_EQ(tools_.count(), 1u);
}

TEST_F(RunManagerTest, RefusesBadNamesUnknownAgentsAndPicksIds) {
  StartManager();
  EXPECT_EQ(manager_->StartRun("Not_Valid", "r", {}).kind(), core::ErrorKind::kInvalidArgument);
  EXPECT_EQ(manager_->StartRun("ghost", "r", {}).kind(), core::ErrorKind::kNotFound);
  Apply(Manifest("alpha", 0));
  EXPECT_EQ(manager_->StartRun("alpha", "bad id", {}).kind(), core::ErrorKind::kInvalidArgument);
  EXPECT_EQ(manager_->StartRun("alpha", std::string(65, 'r'), {}).kind(), core::ErrorKind::kInvalidArgument);
  auto picked = manager_->StartRun("alpha", "", {});
  ASSERT_TRUE(picked.ok());
  EXPECT_EQ(picked->run.id.rfind("run-", 0), 0u);
  EXPECT_EQ(manager_->GetRun("alpha", "nope").kind(), core::ErrorKind::kNotFound);
}

TEST_F(RunManagerTest, AfterARestartAnIntentIsReissuedWithItsRecordedRequestAndKey) {
  json manifest = Manifest("alpha", 2);
  Apply(manifest);
  // What a node that died after sending step 2 (before its completion) leaves.
  ASSERT_TRUE(journal_->Append(EntryKind::kRunStarted, {"alpha", "r1", 0},
                               {{"input", {{"n", 1}}}, {"manifest", manifest}}).ok());
  AgentSpec spec = ReadAgentSpec(manifest);
  json turn0 = AnsweredCompletion(ToolAnswer({{"call-0", "t1", {{"n", 1}}}}), "");
  ASSERT_TRUE(journal_->BeginEffect({"alpha", "r1", 1}, {{"type", "model"}}).ok());
  ASSERT_TRUE(journal_->CompleteEffect({"alpha", "r1", 1}, turn0).ok());
  json recorded = ToolRequest(spec.tools[0], {{"n", 1}});
  recorded["recorded"] = true;
  ASSERT_TRUE(journal_->BeginEffect({"alpha", "r1", 2}, recorded).ok());

  StartManager();
  manager_->WaitIdle();
  RunView run = Run("alpha", "r1");
  EXPECT_EQ(run.status, RunStatus::kFinished);
  ASSERT_EQ(tools_.count(), 2u);
  EXPECT_EQ(tools_.calls[0].first, "alpha/r1/2");
  EXPECT_EQ(tools_.calls[0].second["recorded"], true);  // the first request, not a new one
  EXPECT_EQ(tools_.calls[1].first, "alpha/r1/4");
  // Step 1 was done: the model was asked for steps 3 and 5 only.
  auto asked = model_.requests();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].first, "alpha/r1/3");
  EXPECT_EQ(asked[1].first, "alpha/r1/5");
}

TEST_F(RunManagerTest, AModelIntentIsReissuedWithItsRecordedRequest) {
  json manifest = Manifest("alpha", 1);
  Apply(manifest);
  ASSERT_TRUE(journal_->Append(EntryKind::kRunStarted, {"alpha", "r1", 0},
                               {{"input", {{"n", 1}}}, {"manifest", manifest}}).ok());
  StartManager();  // nothing journaled of step 1 yet: it is made now
  manager_->WaitIdle();
  ASSERT_EQ(Run("alpha", "r1").status, RunStatus::kFinished);
  json first = model_.requests().at(0).second;
  // What a node that died while its first model call was in flight leaves.
  Apply(Manifest("beta", 1));
  json beta = Manifest("beta", 1);
  ASSERT_TRUE(journal_->Append(EntryKind::kRunStarted, {"beta", "r1", 0}, {{"input", {{"n", 1}}}, {"manifest", beta}}).ok());
  json recorded = first;
  recorded["body"]["messages"][0]["content"] = "{\"n\":1}";
  recorded["headers"]["Idempotency-Key"] = "beta/r1/1";
  recorded["recorded"] = true;
  ASSERT_TRUE(journal_->BeginEffect({"beta", "r1", 1}, recorded).ok());
  Restart();
  manager_->WaitIdle();
  EXPECT_EQ(Run("beta", "r1").status, RunStatus::kFinished);
  bool reissued = false;
  for (const auto& [key, request] : model_.requests()) {
    if (key == "beta/r1/1") reissued = request.value("recorded", false);
  }
  EXPECT_TRUE(reissued);
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
  EXPECT_EQ(Run("alpha", "r1").status, RunStatus::kFinished);
  EXPECT_EQ(Run("alpha", "r1").steps_done, 5u);
}

TEST_F(RunManagerTest, ARunWaitsForApprovalThenPerformsTheApprovedCall) {
  Apply(Manifest("pay", 2, {"t2"}));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("pay", "r1", {{"amount", 5}}).ok());
  manager_->WaitIdle();
  EXPECT_EQ(Run("pay", "r1").status, RunStatus::kWaitingApproval);
  EXPECT_EQ(tools_.count(), 1u);  // t1 only
  auto pending = manager_->ListApprovals(true);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].tool, "t2");
  EXPECT_EQ(pending[0].step, 4u);
  EXPECT_EQ(pending[0].arguments["amount"], 5);

  auto decided = manager_->Decide(pending[0].id, true, "alice@example.com", "checked the order");
  ASSERT_TRUE(decided.ok()) << decided.message();
  EXPECT_EQ(decided->decision, "approved");
  EXPECT_EQ(decided->by, "alice@example.com");
  EXPECT_GT(decided->decided_ms, 0);
  manager_->WaitIdle();
  EXPECT_EQ(Run("pay", "r1").status, RunStatus::kFinished);
  ASSERT_EQ(tools_.count(), 2u);
  EXPECT_EQ(tools_.calls[1].first, "pay/r1/4");
  EXPECT_TRUE(manager_->ListApprovals(true).empty());

  // The decision, who made it and when, are in the journal.
  auto entry = journal_->Get({"pay", "r1", 4}, EntryKind::kApprovalDecided);
  ASSERT_TRUE(entry.ok() && *entry);
  auto payload = json::parse((*entry)->payload);
  EXPECT_EQ(payload["decision"], "approved");
  EXPECT_EQ(payload["by"], "alice@example.com");
  EXPECT_GT((*entry)->time_ms, 0);

  auto twice = manager_->Decide(pending[0].id, false, "bob", "");
  EXPECT_EQ(twice.kind(), core::ErrorKind::kConflict);
  EXPECT_NE(twice.message().find("alice@example.com"), std::string::npos);
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
  EXPECT_EQ(run.status, RunStatus::kFinished);
  EXPECT_EQ(tools_.count(), 0u);
  // The model was told, as an error result of its call.
  auto asked = model_.requests();
  ASSERT_EQ(asked.size(), 2u);
  const json& result = asked[1].second["body"]["messages"][2]["content"][0];
  EXPECT_EQ(result["tool_use_id"], "call-0");
  EXPECT_EQ(result["is_error"], true);
  EXPECT_EQ(json::parse(result["content"].get<std::string>())["outcome"], "denied-by-approver");
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
  EXPECT_EQ(Run("pay", "r1").status, RunStatus::kWaitingApproval);
  ASSERT_TRUE(manager_->Decide(pending[0].id, true, "carol", "").ok());
  manager_->WaitIdle();
  EXPECT_EQ(Run("pay", "r1").status, RunStatus::kFinished);
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
  EXPECT_EQ(manager_->Decide("12345", true, "alice", "").kind(), core::ErrorKind::kNotFound);
  EXPECT_EQ(manager_->Decide("x", true, "alice", "").kind(), core::ErrorKind::kNotFound);
  EXPECT_EQ(manager_->Decide("1", true, "", "").kind(), core::ErrorKind::kInvalidArgument);
  EXPECT_EQ(manager_->Decide("1", true, "a\nb", "").kind(), core::ErrorKind::kInvalidArgument);
  EXPECT_EQ(manager_->Decide("1", true, std::string(201, 'a'), "").kind(), core::ErrorKind::kInvalidArgument);
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
  for (const auto& run : manager_->ListRuns("", 10)) EXPECT_EQ(run.status, RunStatus::kFinished);
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
  EXPECT_EQ(Run("pay", "r1").status, RunStatus::kFinished);
  EXPECT_EQ(tools_.count(), 1u);
}

TEST_F(RunManagerTest, AModelErrorFinishesTheRunAsFailedForGood) {
  model_.answer = [](const json&) {
    return ErrorCompletion({model::ErrorKind::kRejected, "the model provider rejected the request (HTTP 400)", 400});
  };
  Apply(Manifest("alpha", 2));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("alpha", "r1", {}).ok());
  manager_->WaitIdle();
  RunView run = Run("alpha", "r1");
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_NE(run.error.find("HTTP 400"), std::string::npos) << run.error;
  EXPECT_GT(run.finished_ms, 0);
  EXPECT_EQ(tools_.count(), 0u);
  auto finished = journal_->Get({"alpha", "r1", 0}, EntryKind::kRunFinished);
  ASSERT_TRUE(finished.ok() && *finished);
  EXPECT_EQ(json::parse((*finished)->payload)["status"], "failed");
  // A restart keeps it failed and asks the model nothing more.
  model_.answer = PlanAnswer;
  Restart();
  manager_->WaitIdle();
  EXPECT_EQ(Run("alpha", "r1").status, RunStatus::kFailed);
  EXPECT_EQ(Run("alpha", "r1").error, run.error);
  EXPECT_EQ(model_.requests().size(), 1u);
}

TEST_F(RunManagerTest, ARunStopsAtItsBudgetOfModelCalls) {
  Apply(Manifest("alpha", 3, {}, /*max_calls=*/2));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("alpha", "r1", {}).ok());
  manager_->WaitIdle();
  RunView run = Run("alpha", "r1");
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_NE(run.error.find("max_calls_per_run"), std::string::npos) << run.error;
  EXPECT_EQ(model_.requests().size(), 2u);
  EXPECT_EQ(tools_.count(), 2u);
}

TEST_F(RunManagerTest, ToolCallIdsAreEchoedWithEveryResult) {
  // One answer asking for two tools, one of which the agent does not have.
  model_.answer = [](const json& request) {
    if (request["body"]["messages"].size() > 1) return AnsweredCompletion(TextAnswer("ok"), "");
    return AnsweredCompletion(ToolAnswer({{"toolu_A", "t1", {{"x", 1}}}, {"toolu_B", "ghost", json::object()}}), "");
  };
  Apply(Manifest("alpha", 1));
  StartManager();
  ASSERT_TRUE(manager_->StartRun("alpha", "r1", {}).ok());
  manager_->WaitIdle();
  EXPECT_EQ(Run("alpha", "r1").status, RunStatus::kFinished);
  EXPECT_EQ(Run("alpha", "r1").output["text"], "ok");
  ASSERT_EQ(tools_.count(), 1u);
  EXPECT_EQ(tools_.calls[0].first, "alpha/r1/2");
  EXPECT_EQ(tools_.calls[0].second["arguments"], json({{"x", 1}}));
  auto asked = model_.requests();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[1].first, "alpha/r1/4");  // step 3 was the unknown tool's
  const json& messages = asked[1].second["body"]["messages"];
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[1]["content"][0]["id"], "toolu_A");
  EXPECT_EQ(messages[1]["content"][1]["id"], "toolu_B");
  const json& results = messages[2]["content"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["tool_use_id"], "toolu_A");
  EXPECT_FALSE(results[0].contains("is_error"));
  EXPECT_EQ(json::parse(results[0]["content"].get<std::string>())["status"], 200);
  EXPECT_EQ(results[1]["tool_use_id"], "toolu_B");
  EXPECT_EQ(results[1]["is_error"], true);
  EXPECT_EQ(json::parse(results[1]["content"].get<std::string>())["outcome"], "unknown-tool");
}

// A sealed tool's completion holds what it read and sent (its stdin, every
// exchange with its headers and bodies, its receipt): all of it stays in the
// journal, and the model is sent the tool's result alone, or a failure's
// reason alone.
TEST_F(RunManagerTest, TheModelIsSentASealedToolsResultAndNothingElse) {
  json manifest = Manifest("alpha", 2);
  for (auto& tool : manifest["spec"]["tools"]) {
    tool["kind"] = "python";
    tool.erase("http");
    tool["component"] = "sha256:" + std::string(64, 'a');
  }
  Apply(manifest);
  const std::string exchanges =
      R"({"request":{"url":"http://records/42","headers":{"Authorization":"Bearer tok-secret"}},)"
      R"("answer":{"status":200,"headers":[["set-cookie","session=cookie-secret"]],)"
      R"("body":"{\"card\":\"4111111111111111\",\"ssn\":\"078-05-1120\"}"}})"
      "\n";
  tools_.completion = {{"type", "tool"},         {"tool", "t1"},
                       {"outcome", "answered"},  {"result", {{"eligible", true}}},
                       {"stdin", "{\"id\":42}"}, {"stop", "exit"},
                       {"fuel_used", 123456789}, {"http_exchanges", exchanges},
                       {"receipt", {{"payloadType", "application/vnd.in-toto+json"}, {"payload", "c2VjcmV0"}}}};
  StartManager();
  ASSERT_TRUE(manager_->StartRun("alpha", "r1", {}).ok());
  manager_->WaitIdle();
  // The second tool fails, its completion again carrying what it did.
  {
    std::lock_guard lock(tools_.mu);
    tools_.completion["outcome"] = "failed";
    tools_.completion.erase("result");
    tools_.completion["reason"] = "the tool ran out of time (limit 1 s) waiting for the answers to its 1 HTTP requests";
  }
  ASSERT_TRUE(manager_->StartRun("alpha", "r2", {}).ok());
  manager_->WaitIdle();
  EXPECT_EQ(Run("alpha", "r1").status, RunStatus::kFinished);
  auto asked = model_.requests();
  ASSERT_EQ(asked.size(), 6u);
  for (const auto& [key, request] : asked) {
    const std::string sent = request.dump();
    for (const char* secret : {"4111111111111111", "078-05-1120", "tok-secret", "cookie-secret", "payloadType",
                               "c2VjcmV0", "http_exchanges", "stdin", "123456789", "fuel_used"}) {
      EXPECT_EQ(sent.find(secret), std::string::npos) << key << " was sent " << secret;
    }
  }
  // r1's model calls are the first three (each run's calls are in step order).
  std::map<std::string, json> by_key(asked.begin(), asked.end());
  const json& answered = by_key["alpha/r1/3"]["body"]["messages"][2]["content"][0];
  EXPECT_EQ(answered["content"], "{\"eligible\":true}");
  EXPECT_FALSE(answered.contains("is_error"));
  const json& failed = by_key["alpha/r2/3"]["body"]["messages"][2]["content"][0];
  EXPECT_EQ(failed["is_error"], true);
  EXPECT_EQ(json::parse(failed["content"].get<std::string>()),
            json({{"outcome", "failed"}, {"reason", tools_.completion["reason"]}}));
  // The journal keeps the whole completion.
  auto step = journal_->Get({"alpha", "r1", 2}, EntryKind::kCompletion);
  ASSERT_TRUE(step.ok() && *step);
  EXPECT_EQ(json::parse((*step)->payload)["http_exchanges"], exchanges);
}

// 200 runs, each with its model call held in flight, on 4 worker threads:
// a call in flight holds no thread.
TEST_F(RunManagerTest, TwoHundredCallsInFlightOnFourWorkers) {
  Apply(Manifest("alpha", 1));
  StartManager();
  model_.Hold(true);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(manager_->StartRun("alpha", "r" + std::to_string(i), {}).ok());
  ASSERT_TRUE(model_.WaitHeld(200));
  for (const RunView& run : manager_->ListRuns("alpha", 1000)) EXPECT_EQ(run.status, RunStatus::kRunning);
  model_.Hold(false);
  manager_->WaitIdle();
  for (const RunView& run : manager_->ListRuns("alpha", 1000)) {
    EXPECT_EQ(run.status, RunStatus::kFinished) << run.id << ": " << run.error;
    EXPECT_EQ(run.steps_done, 3u);
  }
  EXPECT_EQ(tools_.count(), 200u);
  EXPECT_EQ(model_.requests().size(), 400u);
}

// Stop waits for the effects in flight: their completions are journaled.
TEST_F(RunManagerTest, StopJournalsTheCompletionsOfCallsInFlight) {
  Apply(Manifest("alpha", 1));
  StartManager();
  model_.Hold(true);
  ASSERT_TRUE(manager_->StartRun("alpha", "r1", {}).ok());
  ASSERT_TRUE(model_.WaitHeld(1));
  std::thread release([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    model_.Hold(false);
  });
  manager_->Stop();
  release.join();
  auto step = journal_->Lookup({"alpha", "r1", 1});
  ASSERT_TRUE(step.ok());
  EXPECT_TRUE(step->intent && step->completion);
  Restart();
  manager_->WaitIdle();
  EXPECT_EQ(Run("alpha", "r1").status, RunStatus::kFinished);
  EXPECT_EQ(model_.requests().size(), 2u);  // step 1 was not asked again
}

}  // namespace
}  // namespace volent::agent
