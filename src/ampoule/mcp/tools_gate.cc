// gate_submit: `ampoule gate submit` as a tool (docs/gate.md), through the
// same library call (gate::Submit) with the server's --policy. The draft's
// evidence is replaced by the texts given with it, written to a private
// temporary folder; the decision log and outbox are the policy's.
//
// Every decision (send, hold, escalate, refuse) is a result; a submission
// on which nothing could be decided (bad draft, unreadable policy, kernel
// not pinned, ...) is a tool failure with the gate's reason.
#include "ampoule/gate/submit.h"
#include "ampoule/mcp/temp_dir.h"
#include "ampoule/mcp/tools.h"
#include "core/base64.h"
#include "core/json.h"

namespace ampoule::mcp {
namespace {

using nlohmann::json;

json GateInputSchema() {
  return {
      {"type", "object"},
      {"properties",
       {{"draft",
         {{"type", "object"},
          {"description", "The action draft (docs/gate.md): kind, idempotency_key, fields, data_as_of. Its "
                          "evidence is made from the arguments below (any evidence given is replaced)."}}},
        {"receipt",
         {{"type", {"object", "string"}}, {"description", "The receipt of the run whose output backs the action."}}},
        {"code", {{"type", "string"}, {"description", "The program's source text."}}},
        {"module_base64", {{"type", "string"}, {"description", "For a wasm run: the module in base64, instead of code."}}},
        {"inputs", FileMapSchema("The run's inputs: name -> text, under the names the receipt gives them.")},
        {"inputs_base64", FileMapSchema("As inputs, for binary files: name -> base64.")},
        {"stdin", {{"type", "string"}, {"description", "The run's stdin, if it had one."}}},
        {"output", {{"type", "string"}, {"description", "The run's stdout, as printed."}}}}},
      {"required", {"draft", "receipt", "output"}},
      {"additionalProperties", false},
  };
}

json GateOutputSchema() {
  return {
      {"type", "object"},
      {"properties",
       {{"decision", {{"type", "string"}, {"enum", {"send", "hold", "escalate", "refuse"}}}},
        {"reasons", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "The deciding one first."}}},
        {"id", {{"type", "integer"}, {"description", "The decision's number in the decision log."}}},
        {"idempotency_key", {{"type", "string"}}},
        {"kind", {{"type", "string"}}},
        {"receipt_sha256", {{"type", "string"}}},
        {"outbox_file", {{"type", "string"}, {"description", "A delivered send: the outbox message's file."}}},
        {"delivery_error",
         {{"type", "string"},
          {"description", "A send recorded but not delivered yet; the next gate command delivers it."}}},
        {"notes", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "What checking the receipt found."}}}}},
      {"required", {"decision", "reasons", "id", "idempotency_key", "notes"}},
  };
}

ToolResult Submit(const ToolContext& ctx, const json& a) {
  if (ctx.gate_policy.empty()) {
    return ToolResult::Fail("the gate is not configured: start ampoule mcp with --policy GATE_POLICY");
  }
  if (a.contains("code") == a.contains("module_base64")) {
    return ToolResult::Fail("give the program as code or as module_base64 (exactly one)");
  }
  core::Result<std::unique_ptr<TempDir>> dir = TempDir::Make("gate");
  if (!dir) return ToolResult::Fail(dir.message());
  TempDir& d = **dir;
  auto write = [&](const std::string& name, std::string_view bytes) -> core::Status {
    core::Result<std::string> p = d.Write(name, bytes);
    return p ? core::Status::Ok() : core::Status(p.error());
  };

  json evidence = {{"receipt", "receipt.json"}, {"program", "program"}, {"output", "output"}};
  const json& receipt = a["receipt"];
  core::Status s = write("receipt.json", receipt.is_string()
                                       ? receipt.get<std::string>()
                                       : core::DumpJson(receipt, 2) + "\n");
  if (!s.ok()) return ToolResult::Fail(s.message());
  std::string program;
  if (auto c = a.find("code"); c != a.end()) {
    program = c->get<std::string>();
  } else {
    core::Result<std::string> bytes = core::Base64Decode(a["module_base64"].get_ref<const std::string&>(), "module_base64");
    if (!bytes) return ToolResult::Fail(bytes.message());
    program = std::move(*bytes);
  }
  if (s = write("program", program); !s.ok()) return ToolResult::Fail(s.message());
  if (s = write("output", a["output"].get_ref<const std::string&>()); !s.ok()) return ToolResult::Fail(s.message());
  if (auto in = a.find("stdin"); in != a.end()) {
    if (s = write("stdin", in->get_ref<const std::string&>()); !s.ok()) return ToolResult::Fail(s.message());
    evidence["stdin"] = "stdin";
  }
  core::Result<std::vector<NamedBytes>> inputs = ReadInputs(a);
  if (!inputs) return ToolResult::Fail(inputs.message());
  json input_paths = json::object();
  for (const NamedBytes& in : *inputs) {
    if (s = write("inputs/" + in.name, in.bytes); !s.ok()) return ToolResult::Fail(s.message());
    input_paths[in.name] = "inputs/" + in.name;
  }
  if (!input_paths.empty()) evidence["inputs"] = input_paths;
  json draft = a["draft"];
  draft["evidence"] = evidence;
  if (s = write("draft.json", core::DumpJson(draft, 2) + "\n"); !s.ok()) {
    return ToolResult::Fail(s.message());
  }

  gate::SubmitRequest request;
  request.draft_path = d.path() + "/draft.json";
  request.policy_path = ctx.gate_policy;
  request.kernel_path = ctx.kernel_path;
  core::Result<gate::SubmitOutcome> outcome = gate::Submit(request);
  if (!outcome) return ToolResult::Fail("the gate decided nothing: " + outcome.message());
  const gate::DecisionRow& row = outcome->row;
  json out = {{"decision", std::string(gate::DecisionName(outcome->decision))},
              {"reasons", row.reasons},
              {"id", row.id},
              {"idempotency_key", row.idempotency_key},
              {"kind", row.kind},
              {"receipt_sha256", row.receipt_sha256},
              {"notes", outcome->notes}};
  if (!row.outbox_file.empty()) out["outbox_file"] = row.outbox_file;
  if (!outcome->delivery_error.empty()) out["delivery_error"] = outcome->delivery_error;
  return ToolResult::Ok(std::move(out));
}

}  // namespace

Tool GateSubmitTool(std::shared_ptr<const ToolContext> context) {
  return {"gate_submit", "Submit an action to the trust gate",
          "Submits an action backed by a receipt to the trust gate (docs/gate.md). The gate verifies and "
          "replays the receipt on its pinned kernel, compares each asserted field with the signed "
          "output, checks the data's age, and decides: send (delivered to the outbox, at most once per "
          "idempotency key), hold, escalate or refuse. Available when the server was started with "
          "--policy.",
          GateInputSchema(), GateOutputSchema(), [context](const json& a) { return Submit(*context, a); }};
}

}  // namespace ampoule::mcp
