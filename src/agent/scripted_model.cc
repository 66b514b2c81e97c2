#include "agent/scripted_model.h"

namespace volent::agent {

nlohmann::json ScriptedModelTurn(const AgentSpec& agent, const nlohmann::json& input, size_t turn,
                                 const nlohmann::json& results) {
  if (turn < agent.tools.size()) {
    nlohmann::json call = {{"tool", agent.tools[turn].name}, {"arguments", input}};
    return {{"model", kScriptedModelName}, {"tool_calls", nlohmann::json::array({call})}};
  }
  nlohmann::json outcomes = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json one = {{"tool", r.value("tool", "")}, {"outcome", r.value("outcome", "")}};
    if (r.contains("status")) one["status"] = r["status"];
    outcomes.push_back(std::move(one));
  }
  return {{"model", kScriptedModelName},
          {"final",
           {{"text", "called " + std::to_string(results.size()) + " tool(s)"}, {"results", outcomes}}}};
}

}  // namespace volent::agent
