// A small stand-in for the MCP server core, for the HTTP transport's tests:
// initialize succeeds unless params.fail is set; tools/call answers with its
// arguments, or waits at a gate the test opens, or throws; notifications
// and responses get nothing. The server counts the sessions it made and the
// tool calls they ran.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ampoule/mcp/server.h"

namespace ampoule::mcp::testing {

// Calls named "wait" block until `open` is called; `running` counts them.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool opened = false;
  int running = 0;

  void Enter() {
    std::unique_lock lock(mu);
    ++running;
    cv.notify_all();
    cv.wait(lock, [&] { return opened; });
  }
  // Waits (bounded) until n calls are blocked here; false if they never are.
  bool AwaitRunning(int n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return running >= n; });
  }
  void Open() {
    std::lock_guard lock(mu);
    opened = true;
    cv.notify_all();
  }
};

class FakeSession : public Session {
 public:
  FakeSession(Gate* gate, std::atomic<int>* tool_calls) : gate_(gate), tool_calls_(tool_calls) {}
  std::optional<nlohmann::json> Handle(const nlohmann::json& m) override {
    if (!m.contains("id")) return std::nullopt;
    nlohmann::json reply = {{"jsonrpc", "2.0"}, {"id", m["id"]}};
    std::string method = m.value("method", "");
    nlohmann::json params = m.value("params", nlohmann::json::object());
    if (method == "initialize") {
      if (params.value("fail", false)) {
        reply["error"] = {{"code", -32602}, {"message", "bad initialize"}};
      } else {
        reply["result"] = {{"protocolVersion", "2025-11-25"}};
        std::lock_guard lock(mu_);
        version_ = "2025-11-25";
      }
    } else if (method == "tools/call") {
      ++*tool_calls_;
      std::string name = params.value("name", "");
      if (name == "throw") throw std::runtime_error("secret internal detail /etc/passwd");
      if (name == "silent") return std::nullopt;
      if (name == "wait" && gate_) gate_->Enter();
      reply["result"] = {{"content", nlohmann::json::array({{{"type", "text"}, {"text", "line1\nline2"}}})},
                         {"echo", params.value("arguments", nlohmann::json::object())}};
    } else {
      reply["result"] = nlohmann::json::object();
    }
    return reply;
  }
  std::optional<nlohmann::json> HandleText(std::string_view text) override {
    return Handle(nlohmann::json::parse(text));
  }
  std::string protocol_version() const override {
    std::lock_guard lock(mu_);
    return version_;
  }

 private:
  Gate* gate_;
  std::atomic<int>* tool_calls_;
  mutable std::mutex mu_;
  std::string version_;
};

class FakeServer : public Server {
 public:
  explicit FakeServer(Gate* gate = nullptr) : gate_(gate) {}
  std::unique_ptr<Session> NewSession() override {
    ++sessions_made;
    return std::make_unique<FakeSession>(gate_, &tool_calls);
  }
  std::atomic<int> sessions_made{0};
  std::atomic<int> tool_calls{0};

 private:
  Gate* gate_;
};

}  // namespace ampoule::mcp::testing
