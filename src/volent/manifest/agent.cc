// LoadAgent (manifest.h): the schema, then the rules a schema cannot say:
// tool names are unique, approvals name defined tools, and (with a node
// configuration) every capability has an egress allowlist entry.
#include <set>

#include "core/json.h"
#include "volent/manifest/document.h"
#include "volent/manifest/manifest.h"

namespace volent::manifest {
namespace {

using nlohmann::json;

std::string Quote(const std::string& s) { return core::DumpJson(json(s)); }

void CheckCapability(CheckedDocument& doc, const json* owner, const std::string& pointer, const NodeConfig& config) {
  const json* capability = Member(owner, "capability");
  if (capability == nullptr || !capability->is_string()) return;
  const std::string name = capability->get<std::string>();
  for (const AllowEntry& entry : config.egress) {
    if (entry.capability == name) return;
  }
  doc.Add(pointer + "/capability", "capability " + Quote(name) + " has no entry in the node's egress allowlist");
}

void CheckTools(CheckedDocument& doc, const NodeConfig* config) {
  const json* spec = Member(&doc.value, "spec");
  const json* tools = Member(spec, "tools");
  std::set<std::string> names;
  if (tools && tools->is_array()) {
    std::map<std::string, size_t> first;
    for (size_t i = 0; i < tools->size(); ++i) {
      const std::string pointer = "/spec/tools/" + std::to_string(i);
      const json& tool = (*tools)[i];
      const json* name = Member(&tool, "name");
      if (name && name->is_string()) {
        auto [it, inserted] = first.emplace(name->get<std::string>(), i);
        if (!inserted) {
          doc.Add(pointer + "/name", "duplicate tool name " + Quote(it->first) + " (also tool " + std::to_string(it->second) + ")");
        }
        names.insert(it->first);
      }
      // Every kind: an http tool's requests, and a sealed tool's through its
      // capability import (docs/tools.md), go through the egress gate.
      if (config) CheckCapability(doc, &tool, pointer, *config);
    }
  }
  if (config) CheckCapability(doc, Member(spec, "model"), "/spec/model", *config);

  const json* required = Member(Member(spec, "approval"), "required_for");
  if (required == nullptr || !required->is_array()) return;
  for (size_t i = 0; i < required->size(); ++i) {
    const json& entry = (*required)[i];
    if (!entry.is_string()) continue;
    const std::string text = entry.get<std::string>();
    if (text.rfind("tool:", 0) != 0) continue;  // the schema says so
    if (!names.count(text.substr(5))) {
      doc.Add("/spec/approval/required_for/" + std::to_string(i),
              "no tool named " + Quote(text.substr(5)) + " in spec.tools");
    }
  }
}

Agent ToAgent(const json& v) {
  Agent agent;
  const json* spec = Member(&v, "spec");
  const json* model = Member(spec, "model");
  agent.name = StringAt(Member(&v, "metadata"), "name");
  agent.model_provider = StringAt(model, "provider");
  agent.model_name = StringAt(model, "name");
  if (const json* tools = Member(spec, "tools")) {
    for (const json& t : *tools) {
      agent.tools.push_back({StringAt(&t, "name"), StringAt(&t, "kind"), StringAt(&t, "capability"),
                             StringAt(&t, "component")});
    }
  }
  if (const json* required = Member(Member(spec, "approval"), "required_for")) {
    for (const json& r : *required) agent.approval_required_for.push_back(r.get<std::string>().substr(5));
  }
  agent.document = v;
  return agent;
}

}  // namespace

bool IsSealedToolKind(std::string_view kind) { return kind == "wasm" || kind == "python" || kind == "js"; }

Checked<Agent> LoadAgent(std::string_view text, std::string_view file, const NodeConfig* config) {
  Checked<Agent> result;
  try {
    CheckedDocument doc = ReadAndValidate(text, file, SchemaKind::kAgent);
    if (doc.readable) CheckTools(doc, config);
    SortProblems(doc.problems);
    result.readable = doc.readable;
    if (doc.problems.empty()) result.value = ToAgent(doc.value);
    result.problems = std::move(doc.problems);
  } catch (const std::exception&) {
    result.value.reset();
    result.problems = {{std::string(file), 0, 0, "", "the manifest could not be checked (out of memory?)"}};
  }
  return result;
}

}  // namespace volent::manifest
