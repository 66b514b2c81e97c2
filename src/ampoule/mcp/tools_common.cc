// Pieces the tools share: the inputs maps and their schema, UTF-8 checks,
// and the list of every tool.
#include <set>

#include "ampoule/mcp/tools.h"
#include "core/base64.h"

namespace ampoule::mcp {

using nlohmann::json;

json FileMapSchema(const char* description) {
  return {{"type", "object"}, {"description", description}, {"additionalProperties", {{"type", "string"}}}};
}

core::Result<std::vector<NamedBytes>> ReadInputs(const json& arguments) {
  std::vector<NamedBytes> out;
  std::set<std::string> seen;
  for (const char* field : {"inputs", "inputs_base64"}) {
    auto it = arguments.find(field);
    if (it == arguments.end()) continue;
    bool base64 = std::string_view(field) == "inputs_base64";
    for (auto e = it->begin(); e != it->end(); ++e) {
      const std::string& name = e.key();
      if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
          name.find('\0') != std::string::npos) {
        return core::Error{std::string(field) + ": '" + name + "' is not a plain file name (no '/')"};
      }
      if (!seen.insert(name).second) {
        return core::Error{"input '" + name + "' is given twice (in inputs and inputs_base64)"};
      }
      const std::string& value = e.value().get_ref<const std::string&>();
      if (!base64) {
        out.push_back({name, value});
        continue;
      }
      core::Result<std::string> bytes = core::Base64Decode(value, std::string(field) + "/" + name);
      if (!bytes) return bytes.error();
      out.push_back({name, std::move(*bytes)});
    }
  }
  return out;
}

std::vector<Tool> AllTools(std::shared_ptr<const ToolContext> context) {
  std::vector<Tool> tools = RunTools(context);
  tools.push_back(VerifyReceiptTool(context));
  tools.push_back(GateSubmitTool(context));
  return tools;
}

}  // namespace ampoule::mcp
