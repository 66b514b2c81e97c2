#include "volent/control/manifest_body.h"

#include <nlohmann/json.hpp>

#include "volent/control/json_api.h"
#include "volent/control/route_table.h"
#include "volent/store/agent_name.h"

namespace volent::control {

std::variant<manifest::Agent, Problem> ParseManifestBody(
    std::string_view content_type, std::string_view body, const manifest::NodeConfig* config,
    const std::string& instance, const std::function<manifest::Problems(const manifest::Agent&)>& check_agent) {
  if (MediaTypeIn(content_type, {"application/json"})) {
    // The manifest reader takes JSON as YAML (a superset), so a body sent
    // as JSON is held to JSON's own grammar first.
    if (auto problem = CheckJsonSyntax(body, instance)) return *problem;
  }
  manifest::Checked<manifest::Agent> checked = manifest::LoadAgent(body, "manifest", config);
  if (checked.ok() && check_agent) {
    checked.problems = check_agent(*checked.value);
    if (!checked.problems.empty()) checked.value.reset();
  }
  if (!checked.ok()) {
    const size_t n = checked.problems.size();
    Problem p = checked.readable
                    ? MakeProblem(422, "the manifest has " + std::to_string(n) +
                                           (n == 1 ? " problem" : " problems"),
                                  instance)
                    : MakeProblem(400, "malformed-body", "The body is not well-formed",
                                  "the body could not be read as a manifest", instance);
    for (const auto& e : checked.problems) p.errors.push_back({e.pointer, e.line, e.column, e.message});
    if (p.errors.empty()) p.detail = "the manifest is not valid";
    return p;
  }
  manifest::Agent agent = std::move(*checked.value);
  if (!store::IsValidAgentName(agent.name)) {
    Problem p = MakeProblem(422, "the manifest has 1 problem", instance);
    p.errors.push_back({"/metadata/name", 0, 0,
                        "must be 1 to 63 lowercase letters, digits and '-', starting and ending "
                        "with a letter or digit"});
    return p;
  }
  return agent;
}

}  // namespace volent::control
