// The node's tool store over the control API (docs/control-api.md, "Tools";
// docs/tools.md): add a signed tool, list the stored ones. The store and its
// checks are volent/tools/'s; these routes decode requests and write answers.
#include <mutex>
#include <variant>

#include "core/base64.h"
#include "volent/control/api.h"
#include "volent/control/json_api.h"
#include "volent/tools/tool_store.h"

namespace volent::control {
namespace {

using nlohmann::json;

Problem NoStore(const Request& request) {
  return Unavailable("this node has no tool store open", request.path);
}

// The configuration's tool_keys, which name the signers.
const std::vector<manifest::TrustedToolKey>& KeyNames(const ApiContext& ctx) {
  static const std::vector<manifest::TrustedToolKey> kNone;
  return ctx.config ? ctx.config->tool_keys : kNone;
}

// One add at a time: two requests adding the same tool must not race on
// its folder.
std::mutex& AddLock() {
  static std::mutex mu;
  return mu;
}

Response Add(const ApiContext& ctx, const Request& request) {
  if (!ctx.tool_store || !ctx.tool_keys) return ProblemResponse(NoStore(request));
  auto parsed = ParseJsonObject(request.body, request.path);
  if (auto* problem = std::get_if<Problem>(&parsed)) return ProblemResponse(*problem);
  const json& body = std::get<json>(parsed);
  std::vector<FieldError> errors = UnknownMembers(body, {"tool", "signature"});
  std::string tool;
  auto tool_it = body.find("tool");
  if (tool_it == body.end() || !tool_it->is_string()) {
    errors.push_back({"/tool", 0, 0, "must be a string: the tool file's bytes in base64"});
  } else if (auto decoded = core::Base64Decode(tool_it->get<std::string>(), "the tool")) {
    tool = std::move(*decoded);
  } else {
    errors.push_back({"/tool", 0, 0, decoded.message()});
  }
  auto sig_it = body.find("signature");
  if (sig_it == body.end() || !sig_it->is_object()) {
    errors.push_back({"/signature", 0, 0, "must be an object: the tool's signature (a DSSE envelope)"});
  }
  if (!errors.empty()) return ProblemResponse(InvalidBody(std::move(errors), request.path));

  std::lock_guard<std::mutex> lock(AddLock());
  bool stored_now = false;
  auto info = ctx.tool_store->Add(tool, sig_it->dump(), *ctx.tool_keys, &stored_now);
  if (!info) {
    if (info.kind() == core::ErrorKind::kConflict) return ProblemResponse(Conflict(info.message(), request.path));
    return ProblemResponse(MakeProblem(422, "tool-refused", "The tool was refused", info.message(), request.path));
  }
  return JsonResponse(stored_now ? 201 : 200, tools::ToolInfoJson(*info, KeyNames(ctx), *ctx.tool_keys));
}

Response List(const ApiContext& ctx, const Request& request) {
  if (!ctx.tool_store || !ctx.tool_keys) return ProblemResponse(NoStore(request));
  auto listed = ctx.tool_store->List(*ctx.tool_keys);
  if (!listed) return ProblemResponse(Unavailable(listed.message(), request.path));
  json out = json::array();
  for (const auto& t : *listed) {
    out.push_back(tools::ListedToolJson(t, KeyNames(ctx), *ctx.tool_keys));
  }
  return JsonResponse(200, {{"tools", std::move(out)}});
}

json ToolSchema() {
  return {{"type", "object"},
          {"properties",
           {{"digest", {{"type", "string"}, {"pattern", "^sha256:[0-9a-f]{64}$"}}},
            {"kind", {{"enum", {"wasm", "python", "js"}}}},
            {"name", {{"type", "string"}}},
            {"bytes", {{"type", "integer"}, {"minimum", 0}}},
            {"signer", {{"type", "string"}, {"description", "The tool_keys entry whose key signed"}}},
            {"signer_key_id", {{"type", "string"}}},
            {"problem", {{"type", "string"}, {"description", "Why a stored tool fails its checks (list only)"}}}}}};
}

}  // namespace

void AddToolRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"POST", "/v1/tools", "addTool",
             "Add a signed tool to the node's tool store (its signature must be by a key of tool_keys)", {},
             {"application/json"},
             {{"type", "object"},
              {"additionalProperties", false},
              {"required", {"tool", "signature"}},
              {"properties",
               {{"tool", {{"type", "string"}, {"description", "The tool file's bytes, base64"}}},
                {"signature", {{"type", "object"}, {"description", "Its signature (volent tool sign): a DSSE envelope"}}}}}},
             {{201, "Stored", "application/json", ToolSchema()},
              {200, "Already stored (and still passing its checks)", "application/json", ToolSchema()}},
             [ctx](const Request& r, const PathParams&) { return Add(*ctx, r); },
             access::Role::kOperator});
  table.Add({"GET", "/v1/tools", "listTools", "The stored tools, each checked again (digest, signature)", {}, {}, {},
             {{200, "The tools, by digest", "application/json",
               {{"type", "object"},
                {"required", json::array({"tools"})},
                {"properties", {{"tools", {{"type", "array"}, {"items", ToolSchema()}}}}}}}},
             [ctx](const Request& r, const PathParams&) { return List(*ctx, r); },
             access::Role::kReader});
}

}  // namespace volent::control
