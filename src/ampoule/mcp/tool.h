// A tool the MCP server offers: its listing (name, description, the JSON
// Schemas of its arguments and of its result) and the function that runs it.
//
// A tool's function is called only with arguments that satisfied its
// inputSchema (the session checks them first). It returns a ToolResult:
// either the structured result, which must satisfy outputSchema, or a
// failure message for the model (isError: true). Protocol errors are the
// session's business, never a tool's.
//
// Thread-safe: the functions are called from many threads at once.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace ampoule::mcp {

struct ToolResult {
  bool is_error = false;
  nlohmann::json structured;  // the result (when !is_error)
  std::string message;        // the failure (when is_error)

  static ToolResult Ok(nlohmann::json structured) { return {false, std::move(structured), {}}; }
  static ToolResult Fail(std::string message) { return {true, nullptr, std::move(message)}; }
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json input_schema;   // a JSON Schema object with "type": "object"
  nlohmann::json output_schema;  // likewise
  std::function<ToolResult(const nlohmann::json& arguments)> call;
};

// The tools/call result object for `result`: content with one text item
// (the structured result as JSON text, or the failure message),
// structuredContent, and isError.
nlohmann::json ToolResultToJson(const ToolResult& result);

// The tools/list entry for `tool`.
nlohmann::json ToolToJson(const Tool& tool);

// Serialises a message for a transport: compact, and invalid UTF-8 (which a
// guest's output may contain) replaced rather than thrown on.
std::string SerializeMessage(const nlohmann::json& message);

}  // namespace ampoule::mcp
