// The sealed-call queue: bounded, and a call past the bound is refused at
// once with a reason, never run later.
#include "volent/sealed/sealed_tool.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

namespace volent::sealed {
namespace {

agent::ToolDef Tool(const std::string& name) {
  agent::ToolDef tool;
  tool.name = name;
  tool.kind = "wasm";
  tool.component = std::string(64, 'a');  // not in the (empty) store: each call that runs fails fast
  return tool;
}

// Results by tool name, and a gate the first call's completion waits at,
// which keeps the one worker busy.
class Calls {
 public:
  agent::StepDone Done(const std::string& name, bool hold) {
    return [this, name, hold](nlohmann::json result) {
      std::unique_lock lock(mu_);
      results_.emplace_back(name, std::move(result));
      if (hold) {
        holding_ = true;
        cv_.notify_all();
        cv_.wait(lock, [this] { return released_; });
      }
      cv_.notify_all();
    };
  }
  void WaitHolding() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return holding_; });
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  void WaitFor(size_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return results_.size() >= n; });
  }
  std::vector<std::pair<std::string, nlohmann::json>> Results() {
    std::lock_guard lock(mu_);
    return results_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<std::string, nlohmann::json>> results_;
  bool holding_ = false;
  bool released_ = false;
};

TEST(SealedToolQueue, AFloodPastTheBoundIsRefusedAtOnceWithTheReason) {
  const std::string dir = testing::TempDir() + "sealed_queue_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  constexpr size_t kBound = 3;
  Calls calls;
  {
    SealedToolOptions options;
    options.data_dir = dir;
    options.workers = 1;
    options.max_queued = kBound;
    SealedToolRunner runner(std::move(options));
    runner.Perform(Tool("busy"), nlohmann::json::object(), "a/r/1", calls.Done("busy", /*hold=*/true));
    calls.WaitHolding();  // the one worker is inside the first call's completion
    for (size_t i = 0; i < kBound; ++i) {
      runner.Perform(Tool("queued" + std::to_string(i)), nlohmann::json::object(), "a/r/" + std::to_string(i + 2),
                     calls.Done("queued" + std::to_string(i), false));
    }
    // The flood: every call past the bound is refused on this thread,
    // before Perform returns, while the queue is full.
    for (int i = 0; i < 100; ++i) {
      runner.Perform(Tool("extra"), nlohmann::json::object(), "a/r/x" + std::to_string(i), calls.Done("extra", false));
    }
    auto early = calls.Results();
    calls.Release();  // before any check: a failed one must not leave the worker held
    EXPECT_EQ(early.size(), 101u);  // the busy call and the 100 refusals; none of the queued ran
    for (size_t i = 1; i < early.size(); ++i) {
      const nlohmann::json& r = early[i].second;
      EXPECT_EQ(early[i].first, "extra");
      EXPECT_EQ(r.value("outcome", ""), "failed");
      EXPECT_EQ(r.value("tool", ""), "extra");
      EXPECT_NE(r.value("reason", "").find("the node is busy: 3 sealed tool calls are waiting"), std::string::npos)
          << r.dump();
      EXPECT_FALSE(r.contains("receipt"));
    }
  }  // the destructor waits for the queued calls
  auto all = calls.Results();
  ASSERT_EQ(all.size(), 101 + kBound);  // each queued call ran once; no refused call ran
  for (size_t i = 0; i < kBound; ++i) {
    const auto& [name, r] = all[101 + i];
    EXPECT_EQ(name, "queued" + std::to_string(i));  // in order
    EXPECT_NE(r.value("reason", "").find("cannot be loaded"), std::string::npos) << r.dump();
  }
  std::filesystem::remove_all(dir);
}

TEST(SealedToolQueue, RoomAgainOnceTheQueueDrains) {
  const std::string dir = testing::TempDir() + "sealed_queue_drain_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  Calls calls;
  SealedToolOptions options;
  options.data_dir = dir;
  options.workers = 1;
  options.max_queued = 1;
  SealedToolRunner runner(std::move(options));
  for (int i = 0; i < 20; ++i) {  // one at a time: never more than one waiting
    runner.Perform(Tool("t"), nlohmann::json::object(), "a/r/" + std::to_string(i), calls.Done("t", false));
    calls.WaitFor(size_t(i) + 1);
  }
  for (const auto& [name, r] : calls.Results()) {
    EXPECT_EQ(r.value("reason", "").find("busy"), std::string::npos) << r.dump();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace volent::sealed
