#include "volent/agent/agent_spec.h"

#include <set>

namespace volent::agent {
namespace {

std::string StringAt(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

const nlohmann::json& At(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it != object.end() ? *it : kNull;
}

}  // namespace

const ToolDef* AgentSpec::Find(const std::string& tool) const {
  for (const ToolDef& t : tools) {
    if (t.name == tool) return &t;
  }
  return nullptr;
}

AgentSpec ReadAgentSpec(const nlohmann::json& manifest) {
  AgentSpec spec;
  spec.name = StringAt(At(manifest, "metadata"), "name");
  const nlohmann::json& body = At(manifest, "spec");
  spec.instructions = StringAt(body, "instructions");
  spec.model = model::ReadModelSpec(manifest);
  const nlohmann::json& max_calls = At(At(At(body, "model"), "budget"), "max_calls_per_run");
  if (max_calls.is_number_integer() && max_calls.get<int64_t>() >= 1 && max_calls.get<int64_t>() <= 1000000) {
    spec.max_calls_per_run = max_calls.get<int>();
  }
  std::set<std::string> approval;
  const nlohmann::json& required = At(At(body, "approval"), "required_for");
  if (required.is_array()) {
    for (const auto& item : required) {
      // "tool:NAME" (the only form the schema allows).
      if (item.is_string() && item.get<std::string>().rfind("tool:", 0) == 0) {
        approval.insert(item.get<std::string>().substr(5));
      }
    }
  }
  const nlohmann::json& tools = At(body, "tools");
  if (!tools.is_array()) return spec;
  for (const auto& t : tools) {
    ToolDef def;
    def.name = StringAt(t, "name");
    def.description = StringAt(t, "description");
    if (const nlohmann::json& schema = At(t, "input_schema"); schema.is_object()) def.input_schema = schema;
    def.kind = StringAt(t, "kind");
    def.capability = StringAt(t, "capability");
    def.method = StringAt(At(t, "http"), "method");
    def.url = StringAt(At(t, "http"), "url");
    const std::string component = StringAt(t, "component");
    if (component.rfind("sha256:", 0) == 0) def.component = component.substr(7);
    const nlohmann::json& limits = At(t, "limits");
    if (const nlohmann::json& v = At(limits, "time_ms"); v.is_number_integer()) def.time_ms = v.get<int>();
    if (const nlohmann::json& v = At(limits, "memory_mb"); v.is_number_integer()) def.memory_mb = v.get<int>();
    if (const nlohmann::json& v = At(limits, "files_mb"); v.is_number_integer()) def.files_mb = v.get<int>();
    if (const nlohmann::json& v = At(limits, "fuel"); v.is_number_unsigned()) def.fuel = v.get<uint64_t>();
    def.needs_approval = approval.count(def.name) > 0;
    spec.tools.push_back(std::move(def));
  }
  return spec;
}

}  // namespace volent::agent
