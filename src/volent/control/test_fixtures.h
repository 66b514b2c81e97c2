// What the control API tests and its fuzz target share: a node configuration
// with one egress allowlist entry, manifests that pass or fail it, and a fake
// agent::Runs that can be made to give every refusal.
#pragma once

#include <charconv>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/agent/runs.h"

namespace volent::control::testing {

inline constexpr char kNodeConfig[] = R"(apiVersion: volent/v1
kind: NodeConfig
egress:
  allow:
    - capability: refunds
      scheme: https
      host: api.example.com
)";

// A manifest named `name` whose one tool uses `capability`.
inline std::string AgentYaml(const std::string& name, const std::string& capability = "refunds") {
  return "apiVersion: volent/v1\n"
         "kind: Agent\n"
         "metadata:\n"
         "  name: " + name + "\n"
         "spec:\n"
         "  model:\n"
         "    provider: anthropic\n"
         "    name: claude-test\n"
         "  tools:\n"
         "    - name: refund\n"
         "      kind: http\n"
         "      capability: " + capability + "\n"
         "      http:\n"
         "        method: POST\n"
         "        url: https://api.example.com/refunds\n";
}

inline std::string AgentJson(const std::string& name) {
  return R"({"apiVersion":"volent/v1","kind":"Agent","metadata":{"name":")" + name +
         R"("},"spec":{"model":{"provider":"openai","name":"gpt-test"}}})";
}


constexpr int64_t kT0 = 1796004067123;  // 2026-11-30T02:01:07.123Z

// Runs and approvals in memory. Agents named "missing", "rejected" and
// "down" are refused as not found, in conflict and unavailable; an input
// object with "invalid" is refused as invalid.
class FakeRuns : public agent::Runs {
 public:
  core::Result<agent::StartedRun> StartRun(std::string_view agent, std::string_view run_id,
                                              const nlohmann::json& input) override {
    std::lock_guard lock(mu_);
    if (agent == "missing") return Refuse(core::ErrorKind::kNotFound, "no agent named missing");
    if (agent == "rejected") return Refuse(core::ErrorKind::kConflict, "the agent rejected is rejected");
    if (agent == "down") return Refuse(core::ErrorKind::kUnavailable, "the node is stopping");
    if (input.is_object() && input.contains("invalid")) {
      return Refuse(core::ErrorKind::kInvalidArgument, "bad input");
    }
    std::string id = run_id.empty() ? "r" + std::to_string(++counter_) : std::string(run_id);
    for (const auto& run : runs_) {
      if (run.agent == agent && run.id == id) return agent::StartedRun{false, run};
    }
    agent::RunView run;
    run.agent = std::string(agent);
    run.id = id;
    run.status = agent::RunStatus::kRunning;
    run.input = input;
    run.started_ms = kT0 + static_cast<int64_t>(runs_.size());
    runs_.push_back(run);
    return agent::StartedRun{true, run};
  }
  core::Result<agent::RunView> GetRun(std::string_view agent, std::string_view run_id) override {
    std::lock_guard lock(mu_);
    for (const auto& run : runs_) {
      if (run.agent == agent && run.id == run_id) return run;
    }
    return Refuse(core::ErrorKind::kNotFound, "no run " + std::string(run_id) + " of " + std::string(agent));
  }
  std::vector<agent::RunView> ListRuns(std::string_view agent, size_t limit) override {
    std::lock_guard lock(mu_);
    std::vector<agent::RunView> out;
    for (auto it = runs_.rbegin(); it != runs_.rend() && out.size() < limit; ++it) {
      if (agent.empty() || it->agent == agent) out.push_back(*it);
    }
    return out;
  }
  std::vector<agent::RunView> FindRuns(std::string_view run_id) override {
    std::lock_guard lock(mu_);
    std::vector<agent::RunView> out;
    for (const auto& run : runs_) {
      if (run.id == run_id) out.push_back(run);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.agent < b.agent; });
    return out;
  }
  std::vector<agent::ApprovalView> ListApprovals(bool pending_only) override {
    std::lock_guard lock(mu_);
    std::vector<agent::ApprovalView> out;
    for (const auto& [id, a] : approvals_) {
      if (!pending_only || a.decision.empty()) out.push_back(a);
    }
    return out;
  }
  core::Result<agent::ApprovalView> GetApproval(std::string_view id) override {
    std::lock_guard lock(mu_);
    auto it = approvals_.find(ParseId(id));
    if (it == approvals_.end()) return Refuse(core::ErrorKind::kNotFound, "no approval " + std::string(id));
    return it->second;
  }
  core::Result<agent::ApprovalView> Decide(std::string_view id, bool approve, const agent::Decider& decider,
                                              std::string_view reason) override {
    const std::string& by = decider.by;
    std::lock_guard lock(mu_);
    auto it = approvals_.find(ParseId(id));
    if (it == approvals_.end()) return Refuse(core::ErrorKind::kNotFound, "no approval " + std::string(id));
    if (!it->second.decision.empty()) return Refuse(core::ErrorKind::kConflict, "already decided");
    it->second.decision = approve ? "approved" : "denied";
    it->second.by = by;
    it->second.identity = decider.identity;
    it->second.signature = decider.signature;
    it->second.reason = std::string(reason);
    it->second.decided_ms = kT0 + 60000;
    return it->second;
  }

  // Test setup.
  void AddApproval(uint64_t id, std::string run, std::string tool) {
    agent::ApprovalView a;
    a.id = std::to_string(id);
    a.agent = "bot";
    a.run = std::move(run);
    a.step = 3;
    a.tool = std::move(tool);
    a.arguments = {{"amount", 42}};
    a.requested_ms = kT0 + static_cast<int64_t>(id);
    a.call_digest = "sha256:" + std::string(63, '0') + std::to_string(id % 10);
    approvals_[id] = a;
  }
  void Finish(size_t index, nlohmann::json output, std::string error = "") {
    runs_[index].status = error.empty() ? agent::RunStatus::kFinished : agent::RunStatus::kFailed;
    runs_[index].output = std::move(output);
    runs_[index].error = std::move(error);
    runs_[index].steps_done = 5;
    runs_[index].finished_ms = kT0 + 5000;
  }

 private:
  static core::Error Refuse(core::ErrorKind kind, std::string message) { return {std::move(message), kind}; }

  static uint64_t ParseId(std::string_view id) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
    return ec == std::errc() && end == id.data() + id.size() ? n : UINT64_MAX;
  }

  std::mutex mu_;
  std::vector<agent::RunView> runs_;
  std::map<uint64_t, agent::ApprovalView> approvals_;
  int counter_ = 0;
};

}  // namespace volent::control::testing
