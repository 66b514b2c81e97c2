// Fuzz target for the MCP session (src/ampoule/mcp/session.cc): Session::HandleText
// on arbitrary bytes, with a server whose only tool is a cheap echo (the
// real tools run programs and are not reached here).
//
// The input is split at newlines, as the stdio transport frames it; each
// line goes to one session in turn, after an optional initialize so that
// tools/list and tools/call are reached too (the first byte chooses: odd
// initializes; it is not part of the messages).
// What must hold, beyond no crash, hang or sanitizer report:
//   - a response is a JSON-RPC 2.0 object with exactly one of result and
//     error, an id that is a string, an integer or null, and an integer
//     error code;
//   - it serialises (invalid UTF-8 replaced) to text that parses again;
//   - tools/call results carry a content array and a boolean isError.
//
// Seeds: fuzz/corpus/mcp_session_fuzz (an initialize, tools/list, a
// tools/call, a ping, a batch, and a notification).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ampoule/mcp/server_impl.h"

namespace {

using nlohmann::json;
using namespace ampoule::mcp;

std::shared_ptr<Server> MakeServer() {
  Tool echo{"echo",
            "Echo",
            "Returns its text.",
            {{"type", "object"},
             {"properties", {{"text", {{"type", "string"}}}, {"n", {{"type", "integer"}, {"minimum", 0}}}}},
             {"required", {"text"}},
             {"additionalProperties", false}},
            {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}},
            [](const json& a) { return ToolResult::Ok({{"text", a["text"]}}); }};
  return NewServerWithTools({echo});
}

void Check(bool ok) {
  if (!ok) abort();
}

void CheckResponse(const json& r) {
  Check(r.is_object());
  Check(r.value("jsonrpc", "") == "2.0");
  Check(r.contains("id"));
  const json& id = r["id"];
  Check(id.is_null() || id.is_string() || id.is_number_integer());
  Check(r.contains("result") != r.contains("error"));
  if (r.contains("error")) {
    Check(r["error"].is_object() && r["error"]["code"].is_number_integer() && r["error"]["message"].is_string());
  } else if (r["result"].contains("content")) {
    Check(r["result"]["content"].is_array() && r["result"]["isError"].is_boolean());
  }
  std::string text = SerializeMessage(r);
  Check(json::accept(text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::shared_ptr<Server> server = MakeServer();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<Session> session = server->NewSession();
  if (input.empty()) return 0;
  if (input[0] & 1) {
    std::optional<json> init = session->HandleText(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
    Check(init && init->contains("result"));
  }
  input.remove_prefix(1);
  while (!input.empty()) {
    size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    std::optional<json> r = session->HandleText(line);
    if (r) CheckResponse(*r);
    if (nl == std::string_view::npos) break;
    input.remove_prefix(nl + 1);
  }
  return 0;
}
