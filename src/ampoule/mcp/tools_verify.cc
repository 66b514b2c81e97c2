// verify_receipt: `ampoule verify` (and --replay) as a tool, through the
// same library call (verify::RunCheck). The texts it is given are written
// to a private temporary folder, as the command would read them from files.
//
// The keys trusted are the server's (--trusted-keys, else the public half
// of its own signing key) and the kernel is the server's, so a receipt is
// VERIFIED only if one of those keys signed it for that kernel. A FAILED
// verdict is a normal result: the verdict is what was asked for.
#include "ampoule/mcp/temp_dir.h"
#include "ampoule/mcp/tools.h"
#include "ampoule/verify/command.h"
#include "core/base64.h"
#include "core/json.h"

namespace ampoule::mcp {
namespace {

using nlohmann::json;

json VerifyInputSchema() {
  return {
      {"type", "object"},
      {"properties",
       {{"receipt",
         {{"type", {"object", "string"}},
          {"description", "The receipt: the DSSE envelope object a run tool returned, or its JSON text."}}},
        {"code", {{"type", "string"}, {"description", "The program's source text (needed for replay)."}}},
        {"module_base64",
         {{"type", "string"}, {"description", "For a wasm run: the module's bytes in base64, instead of code."}}},
        {"inputs", FileMapSchema("The run's inputs: name -> text, under the names the receipt gives them.")},
        {"inputs_base64", FileMapSchema("As inputs, for binary files: name -> base64.")},
        {"stdin", {{"type", "string"}, {"description", "The run's stdin."}}},
        {"output",
         {{"type", "string"}, {"description", "The output to check against the receipt's stdout digest."}}},
        {"replay",
         {{"type", "boolean"},
          {"description", "Re-run the program on the kernel and compare everything (needs code or "
                          "module_base64, and the inputs and stdin)."}}}}},
      {"required", {"receipt"}},
      {"additionalProperties", false},
  };
}

json VerifyOutputSchema() {
  return {
      {"type", "object"},
      {"properties",
       {{"exit_code",
         {{"type", "integer"},
          {"description", "As `ampoule verify` exits: 0 verified (or replay OK), 1 failed, 2 error, 3 not "
                          "replayable, 4 the run failed, 5 incomplete, 6 too large."}}},
        {"result_line",
         {{"type", "string"},
          {"description", "VERIFIED, FAILED, REPLAY OK, REPLAY FAILED: <reason>, ERROR: <reason>, ..."}}},
        {"verified", {{"type", "boolean"}, {"description", "exit_code is 0."}}},
        {"notes", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "What the check found."}}},
        {"record",
         {{"type", "object"}, {"description", "The run record the receipt carries, once its signature checked."}}}}},
      {"required", {"exit_code", "result_line", "verified", "notes"}},
  };
}

ToolResult Verify(const ToolContext& ctx, const json& a) {
  core::Result<std::unique_ptr<TempDir>> dir = TempDir::Make("verify");
  if (!dir) return ToolResult::Fail(dir.message());
  TempDir& d = **dir;
  verify::Options options;
  options.replay = a.value("replay", false);
  options.kernel = ctx.kernel_path;

  const json& receipt = a["receipt"];
  std::string receipt_text = receipt.is_string()
                                 ? receipt.get<std::string>()
                                 : core::DumpJson(receipt, 2) + "\n";
  core::Result<std::string> path = d.Write("receipt.json", receipt_text);
  if (!path) return ToolResult::Fail(path.message());
  options.receipt = *path;

  if (ctx.trusted_keys.empty()) {
    core::Result<std::string> pub = d.Write("server.pub", ctx.own_public_key);
    if (!pub) return ToolResult::Fail(pub.message());
    options.keys.push_back(*pub);
  } else {
    options.trusted_keys = ctx.trusted_keys;
  }

  if (a.contains("code") && a.contains("module_base64")) {
    return ToolResult::Fail("give the program as code or as module_base64, not both");
  }
  std::optional<std::string> program;
  if (auto c = a.find("code"); c != a.end()) program = c->get<std::string>();
  if (auto m = a.find("module_base64"); m != a.end()) {
    core::Result<std::string> bytes = core::Base64Decode(m->get_ref<const std::string&>(), "module_base64");
    if (!bytes) return ToolResult::Fail(bytes.message());
    program = std::move(*bytes);
  }
  if (program) {
    core::Result<std::string> p = d.Write("program", *program);
    if (!p) return ToolResult::Fail(p.message());
    options.program = *p;
  }
  core::Result<std::vector<NamedBytes>> inputs = ReadInputs(a);
  if (!inputs) return ToolResult::Fail(inputs.message());
  for (const NamedBytes& in : *inputs) {
    core::Result<std::string> p = d.Write("inputs/" + in.name, in.bytes);
    if (!p) return ToolResult::Fail(p.message());
    options.inputs.push_back({in.name, *p});
  }
  if (auto s = a.find("stdin"); s != a.end()) {
    core::Result<std::string> p = d.Write("stdin", s->get_ref<const std::string&>());
    if (!p) return ToolResult::Fail(p.message());
    options.stdin_path = *p;
  }
  if (auto o = a.find("output"); o != a.end()) {
    core::Result<std::string> p = d.Write("output", o->get_ref<const std::string&>());
    if (!p) return ToolResult::Fail(p.message());
    options.outputs.push_back(*p);
  }
  if (options.replay && options.program.empty()) {
    return ToolResult::Fail("replay needs the program: give code (or module_base64 for wasm)");
  }

  verify::CheckOutcome outcome = verify::RunCheck(options);
  json out = {{"exit_code", verify::ExitCodeFor(outcome.verdict.conclusion)},
              {"result_line", outcome.verdict.line},
              {"verified", outcome.verdict.verified()},
              {"notes", outcome.notes}};
  if (outcome.record) out["record"] = run::RecordToJson(*outcome.record);
  return ToolResult::Ok(std::move(out));
}

}  // namespace

Tool VerifyReceiptTool(std::shared_ptr<const ToolContext> context) {
  return {"verify_receipt", "Verify (or replay) a receipt",
          "Checks a receipt from a run tool or `ampoule run`: the signature (by a key this server "
          "trusts), the kernel (this server's), and each given file against the digests it signs. "
          "With replay: true, re-runs the program on the kernel and requires the same output, fuel and "
          "status. A failed check is a result, not an error: result_line and notes say what failed.",
          VerifyInputSchema(), VerifyOutputSchema(), [context](const json& a) { return Verify(*context, a); }};
}

}  // namespace ampoule::mcp
