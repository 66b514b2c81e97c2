// The agent loop end to end against the mock model (src/volent/mockmodel) started
// in this process on 127.0.0.1: a real egress::Gate (the mock reached only
// through `cidr: 127.0.0.1/32` entries), a real model::Client, a real
// journal. The mock's default plan calls every tool offered once, then
// answers "done: N tool call(s)"; the tools here are GETs of the mock's own
// /healthz. Both providers' formats: anthropic with an endpoint, and
// openai-compatible.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "volent/agent/delays.h"
#include "volent/agent/model_step.h"
#include "volent/agent/run_manager.h"
#include "volent/agent/tool_call.h"
#include "volent/mockmodel/server.h"
#include "volent/mockmodel/service.h"
#include "volent/model/client.h"

namespace volent::agent {
namespace {

using nlohmann::json;

constexpr char kMockKey[] = "sk-mock-test-key";

class RunManagerMockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/run_manager_mock_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    mockmodel::ServiceOptions service_options;
    service_options.api_key = kMockKey;
    service_ = std::make_unique<mockmodel::Service>(std::move(service_options));
    auto server = mockmodel::Server::Bind(*service_, {});
    ASSERT_TRUE(server.ok()) << server.message();
    server_ = std::move(*server);
    port_ = server_->port();
    serving_ = std::thread([this] { server_->Run(); });

    // model.mock carries the right key, model.wrong a key the mock refuses.
    std::vector<manifest::AllowEntry> allow = {
        {"model.mock", "http", "", "127.0.0.1/32", port_, "", {"POST"}},
        {"model.wrong", "http", "", "127.0.0.1/32", port_, "", {"POST"}},
        {"mock.health", "http", "", "127.0.0.1/32", port_, "/healthz", {"GET"}},
        {"closed", "http", "", "127.0.0.1/32", 1, "", {"GET"}},  // nothing listens on port 1
    };
    gate_ = std::make_unique<egress::Gate>(std::move(allow));
    client_ = std::make_unique<model::Client>(
        *gate_, model::ModelKeys({{"model.mock", kMockKey}, {"model.wrong", "sk-not-the-key"}}));
    auto store = store::AgentStore::Open("");
    ASSERT_TRUE(store.ok()) << store.message();
    store_ = std::move(*store);
    auto journal = journal::Journal::Open(dir_);
    ASSERT_TRUE(journal.ok()) << journal.message();
    journal_ = std::move(*journal);
    auto manager = RunManager::Start(*journal_, *store_, GateToolPerformer(*gate_, delays_),
                                     ClientModelPerformer(*client_, delays_), {.threads = 2});
    ASSERT_TRUE(manager.ok()) << manager.message();
    manager_ = std::move(*manager);
  }
  void TearDown() override {
    manager_.reset();
    journal_.reset();
    if (server_) server_->Stop();
    if (serving_.joinable()) serving_.join();
    std::filesystem::remove_all(dir_);
  }

  json Agent(const std::string& name, const std::string& provider, const std::string& capability) {
    const std::string base = "http://127.0.0.1:" + std::to_string(port_);
    json model = {{"provider", provider},
                  {"name", "mock-model"},
                  {"endpoint", provider == "anthropic" ? base : base + "/v1"},
                  {"capability", capability}};
    json tools = json::array();
    for (const char* tool : {"health_a", "health_b"}) {
      tools.push_back({{"name", tool},
                       {"description", "Is the service up?"},
                       {"kind", "http"},
                       {"capability", "mock.health"},
                       {"http", {{"method", "GET"}, {"url", base + "/healthz"}}}});
    }
    return {{"apiVersion", "volent/v1"},
            {"kind", "Agent"},
            {"metadata", {{"name", name}}},
            {"spec", {{"instructions", "Check both services."}, {"model", model}, {"tools", tools}}}};
  }

  RunView RunAgent(const json& manifest) {
    const std::string name = manifest["metadata"]["name"];
    EXPECT_TRUE(store_->Apply(name, manifest.dump()).ok());
    auto started = manager_->StartRun(name, "r1", {{"ticket", 7}});
    EXPECT_TRUE(started.ok()) << started.message();
    manager_->WaitIdle();
    return manager_->GetRun(name, "r1").value();
  }

  std::string dir_;
  std::unique_ptr<mockmodel::Service> service_;
  std::unique_ptr<mockmodel::Server> server_;
  std::thread serving_;
  int port_ = 0;
  std::unique_ptr<egress::Gate> gate_;
  std::unique_ptr<model::Client> client_;
  Delays delays_;
  std::unique_ptr<store::AgentStore> store_;
  std::unique_ptr<journal::Journal> journal_;
  std::unique_ptr<RunManager> manager_;
};

TEST_F(RunManagerMockTest, AnthropicRunCallsBothToolsAndFinishes) {
  RunView run = RunAgent(Agent("via-anthropic", "anthropic", "model.mock"));
  EXPECT_EQ(run.status, RunStatus::kFinished) << run.error;
  EXPECT_EQ(run.output["text"], "done: 2 tool call(s)");
  EXPECT_EQ(run.output["stop"], "end");
  EXPECT_EQ(run.steps_done, 5u);  // model, tool, model, tool, model
  auto tool = journal_->Lookup({"via-anthropic", "r1", 2});
  ASSERT_TRUE(tool.ok() && tool->completion);
  json result = json::parse(tool->completion->payload);
  EXPECT_EQ(result["outcome"], "answered");
  EXPECT_EQ(result["status"], 200);
  EXPECT_EQ(json::parse(tool->intent->payload)["arguments"], json({{"ticket", 7}}));  // the input, echoed by the plan
  auto model_step = journal_->Lookup({"via-anthropic", "r1", 1});
  ASSERT_TRUE(model_step.ok() && model_step->intent && model_step->completion);
  EXPECT_EQ(model_step->intent->payload.find(kMockKey), std::string::npos);  // no key in the journal
  json stats = service_->Stats();
  EXPECT_EQ(stats["requests"], 3);
  EXPECT_EQ(stats["by_api"]["anthropic"], 3);
  EXPECT_EQ(stats["duplicates"], 0);
}

TEST_F(RunManagerMockTest, OpenAiCompatibleRunCallsBothToolsAndFinishes) {
  RunView run = RunAgent(Agent("via-openai", "openai-compatible", "model.mock"));
  EXPECT_EQ(run.status, RunStatus::kFinished) << run.error;
  EXPECT_EQ(run.output["text"], "done: 2 tool call(s)");
  json stats = service_->Stats();
  EXPECT_EQ(stats["by_api"]["openai"], 3);
  EXPECT_EQ(stats["errors"], 0);
}

TEST_F(RunManagerMockTest, ARefusedKeyFailsTheRunWithTheProvidersWords) {
  RunView run = RunAgent(Agent("wrong-key", "anthropic", "model.wrong"));
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_NE(run.error.find("HTTP 401"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("model_keys"), std::string::npos) << run.error;
  EXPECT_EQ(service_->Stats()["requests"], 1);  // rejected: not retried
}

// A tool nobody answers: its attempts (3, with the same key) pause on the
// delays, not on a gate thread; then "not-sent" is the result the model
// gets, and the run goes on.
TEST_F(RunManagerMockTest, AToolThatCannotBeReachedIsReportedNotSentAfterItsAttempts) {
  json manifest = Agent("closed-port", "openai-compatible", "model.mock");
  manifest["spec"]["tools"] = json::array({{{"name", "down"},
                                            {"kind", "http"},
                                            {"capability", "closed"},
                                            {"http", {{"method", "GET"}, {"url", "http://127.0.0.1:1/x"}}}}});
  RunView run = RunAgent(manifest);
  EXPECT_EQ(run.status, RunStatus::kFinished) << run.error;
  EXPECT_EQ(run.output["text"], "done: 1 tool call(s)");
  auto tool = journal_->Lookup({"closed-port", "r1", 2});
  ASSERT_TRUE(tool.ok() && tool->completion);
  json result = json::parse(tool->completion->payload);
  EXPECT_EQ(result["outcome"], "not-sent") << result.dump();
  EXPECT_EQ(result["address"], "127.0.0.1:1");
}

}  // namespace
}  // namespace volent::agent
