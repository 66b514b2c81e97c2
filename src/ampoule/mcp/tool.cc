#include "ampoule/mcp/tool.h"
#include "core/json.h"

namespace ampoule::mcp {

using nlohmann::json;

std::string SerializeMessage(const json& message) {
  return core::DumpJson(message);
}

json ToolResultToJson(const ToolResult& result) {
  json out = json::object();
  if (result.is_error) {
    out["content"] = json::array({{{"type", "text"}, {"text", result.message}}});
    out["isError"] = true;
    return out;
  }
  // Clients that predate structuredContent read the same result as text.
  out["content"] = json::array({{{"type", "text"}, {"text", SerializeMessage(result.structured)}}});
  out["structuredContent"] = result.structured;
  out["isError"] = false;
  return out;
}

json ToolToJson(const Tool& tool) {
  json out = {{"name", tool.name}, {"description", tool.description}, {"inputSchema", tool.input_schema}};
  if (!tool.title.empty()) out["title"] = tool.title;
  if (!tool.output_schema.is_null()) out["outputSchema"] = tool.output_schema;
  return out;
}

}  // namespace ampoule::mcp
