// Fuzz target for what an operator writes: agent manifests and the node
// configuration (manifest/manifest.h), read as YAML or JSON.
//
// The input is loaded as a manifest (with and without a node
// configuration) and as a node configuration. What must hold, beyond no
// crash, hang or sanitizer report:
//   - a load succeeds exactly when it reports no problem; every problem
//     names the file and says something;
//   - an agent that loads has a name store::IsValidAgentName accepts, and
//     its document, written out as JSON, loads again to the same document
//     (the JSON path through the YAML reader agrees with the YAML path);
//   - a configuration that loads has a port in 1..65535 and round-trips the
//     same way.
//
// Seeds: fuzz/corpus/manifest_fuzz (valid and invalid manifests and
// configurations, YAML and JSON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/manifest/manifest.h"
#include "volent/store/agent_name.h"

namespace {

using namespace volent;

void Check(bool condition) {
  if (!condition) std::abort();
}

template <class T>
void CheckProblems(const manifest::Checked<T>& checked, std::string_view file) {
  Check(checked.ok() == checked.problems.empty());
  for (const manifest::Problem& p : checked.problems) {
    Check(p.file == file);
    Check(!p.message.empty());
    Check(p.line >= 0 && p.column >= 0);
    Check(!manifest::FormatProblem(p).empty());
  }
}

const manifest::NodeConfig& Config() {
  static const manifest::NodeConfig config = [] {
    manifest::NodeConfig c;
    c.egress.push_back({"erp.orders", "http", "", "10.20.0.0/16", 8080, "/api/", {"GET"}});
    c.egress.push_back({"payments", "https", "*.example.com", "", 0, "", {}});
    return c;
  }();
  return config;
}

void CheckAgent(std::string_view text, const manifest::NodeConfig* config) {
  manifest::Checked<manifest::Agent> agent = manifest::LoadAgent(text, "f.agent.yaml", config);
  CheckProblems(agent, "f.agent.yaml");
  if (!agent.ok()) return;
  Check(store::IsValidAgentName(agent.value->name));
  const std::string json = agent.value->document.dump();  // throws (aborts) on invalid UTF-8
  manifest::Checked<manifest::Agent> again = manifest::LoadAgent(json, "again.json", config);
  Check(again.ok());
  Check(again.value->document == agent.value->document);
}

void CheckConfig(std::string_view text) {
  manifest::Checked<manifest::NodeConfig> config = manifest::LoadNodeConfig(text, "volent.yaml", "/base");
  CheckProblems(config, "volent.yaml");
  if (!config.ok()) return;
  Check(config.value->listen_port >= 1 && config.value->listen_port <= 65535);
  for (const manifest::AllowEntry& e : config.value->egress) Check(e.host.empty() != e.cidr.empty());
  manifest::Checked<manifest::NodeConfig> again =
      manifest::LoadNodeConfig(config.value->document.dump(), "volent.yaml", "/base");
  Check(again.ok());
  Check(again.value->document == config.value->document);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckAgent(text, nullptr);
  CheckAgent(text, &Config());
  CheckConfig(text);
  manifest::DocumentKind(text);
  return 0;
}
