// run_python, run_javascript, run_wasm: `ampoule run` as tools. The same
// library path as the command (run::RunProgram, then run::MakeReceipt
// with the server's key), so a tool's receipt verifies and replays exactly
// like one from `ampoule run`.
//
// A guest that exits non-zero, traps or runs out of fuel is a result (the
// status says how it ended); only a run that could not happen is a failure.
#include <cmath>
#include <limits>

#include "ampoule/mcp/tools.h"
#include "ampoule/run/receipt_builder.h"
#include "ampoule/run/run_program.h"
#include "core/base64.h"
#include "core/json.h"
#include "core/utf8.h"

namespace ampoule::mcp {
namespace {

using nlohmann::json;

json LimitProperties() {
  return {
      {"stdin", {{"type", "string"}, {"description", "The guest's stdin (default: empty)."}}},
      {"seed",
       {{"type", "integer"}, {"minimum", 0}, {"description", "Seed of the guest's random numbers (default 0)."}}},
      {"fuel",
       {{"type", "integer"},
        {"minimum", 1},
        {"description", "Fuel budget, in instructions-like units (default 20000000000, ~10-20 s of CPU)."}}},
      {"memory_bytes",
       {{"type", "integer"}, {"minimum", 1}, {"description", "Cap on the guest's memory in bytes (default 512 MiB)."}}},
      {"timeout_seconds",
       {{"type", "number"},
        {"exclusiveMinimum", 0},
        {"maximum", 86400},
        {"description", "Wall-clock safety net (default 60). A run it stops is recorded as terminated "
                        "and cannot be replayed."}}},
      {"inputs", FileMapSchema("Files readable in the guest as /input/NAME: name -> text.")},
      {"inputs_base64", FileMapSchema("As inputs, for binary files: name -> base64 of the bytes.")},
  };
}

json RunOutputSchema() {
  json str = {{"type", "string"}};
  return {
      {"type", "object"},
      {"properties",
       {{"stdout", {{"type", "string"}, {"description", "What the guest wrote to stdout (kept bytes)."}}},
        {"stderr", {{"type", "string"}, {"description", "What the guest wrote to stderr (kept bytes)."}}},
        {"stdout_base64",
         {{"type", "string"}, {"description", "stdout's bytes in base64; only when they are not UTF-8."}}},
        {"stderr_base64",
         {{"type", "string"}, {"description", "stderr's bytes in base64; only when they are not UTF-8."}}},
        {"status",
         {{"type", "integer"},
          {"description", "As `ampoule run` exits: 0-119 the guest's exit status, 120 higher, 121 memory "
                          "cap, 124 stopped by the safety net, 126 trap, 127 out of fuel."}}},
        {"stop", {{"type", "string"}, {"enum", {"exit", "trap", "fuel", "memory", "timeout"}}}},
        {"fuel_used", {{"type", "integer"}, {"minimum", 0}}},
        {"record", {{"type", "object"}, {"description", "The run record (the receipt's predicate)."}}},
        {"receipt",
         {{"type", "object"},
          {"description", "The signed receipt: a DSSE envelope. Save it as JSON; check it with "
                          "verify_receipt or `ampoule verify`."}}}}},
      {"required", {"stdout", "stderr", "status", "stop", "fuel_used", "record", "receipt"}},
  };
}

json InputSchema(const char* program_field, const char* program_description) {
  json props = LimitProperties();
  props[program_field] = {{"type", "string"}, {"description", program_description}};
  return {{"type", "object"},
          {"properties", props},
          {"required", {program_field}},
          {"additionalProperties", false}};
}

// A whole number argument (already checked: an integer >= 0) as uint64;
// false when it does not fit.
bool GetU64(const json& v, uint64_t* out) {
  if (v.is_number_unsigned()) {
    *out = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer()) {
    if (v.get<int64_t>() < 0) return false;
    *out = uint64_t(v.get<int64_t>());
    return true;
  }
  double d = v.get<double>();
  if (!(d >= 0) || d >= 18446744073709551616.0) return false;
  *out = uint64_t(d);
  return true;
}

core::Result<run::RunSpec> SpecFromArguments(const ToolContext& ctx, const json& a) {
  run::RunSpec spec;
  spec.kernel_path = ctx.kernel_path;
  spec.limits.output_cap_bytes = kToolOutputCapBytes;
  core::Result<std::vector<NamedBytes>> inputs = ReadInputs(a);
  if (!inputs) return inputs.error();
  for (NamedBytes& in : *inputs) spec.inputs.push_back({in.name, {in.bytes.begin(), in.bytes.end()}});
  if (auto s = a.find("stdin"); s != a.end()) {
    const std::string& text = s->get_ref<const std::string&>();
    spec.stdin_bytes.assign(text.begin(), text.end());
  }
  for (auto [field, slot] : {std::pair{"seed", &spec.seed}, std::pair{"fuel", &spec.limits.fuel},
                             std::pair{"memory_bytes", &spec.limits.memory_bytes}}) {
    if (auto v = a.find(field); v != a.end() && !GetU64(*v, slot)) {
      return core::Error{std::string(field) + ": too large (at most 18446744073709551615)"};
    }
  }
  if (auto t = a.find("timeout_seconds"); t != a.end()) spec.limits.timeout_seconds = t->get<double>();
  return spec;
}

json OutputStream(json& out, const char* name, const std::string& bytes) {
  if (core::IsValidUtf8(bytes)) {
    out[name] = bytes;
  } else {
    // JSON text must be Unicode: give the bytes exactly in base64, and a
    // readable rendering with the bad bytes replaced.
    out[std::string(name) + "_base64"] = core::Base64Encode(bytes);
    out[name] = json::parse(core::DumpJson(json(bytes)));
  }
  return out;
}

ToolResult Run(const ToolContext& ctx, const std::string& runtime, const json& arguments) {
  core::Result<run::RunSpec> spec = SpecFromArguments(ctx, arguments);
  if (!spec) return ToolResult::Fail(spec.message());
  spec->runtime = runtime;
  if (runtime == "wasm") {
    core::Result<std::string> module = core::Base64Decode(
        arguments["module_base64"].get_ref<const std::string&>(), "module_base64");
    if (!module) return ToolResult::Fail(module.message());
    spec->program.assign(module->begin(), module->end());
    spec->program_name = "module.wasm";
  } else {
    const std::string& code = arguments["code"].get_ref<const std::string&>();
    spec->program.assign(code.begin(), code.end());
    spec->program_name = runtime == "python" ? "main.py" : "main.js";
  }
  core::Result<run::ProgramRun> result = run::RunProgram(*spec);
  if (!result) return ToolResult::Fail("the program could not be run: " + result.message());
  const run::RunRecord& record = result->record;
  json out = json::object();
  OutputStream(out, "stdout", result->stdout_data);
  OutputStream(out, "stderr", result->stderr_data);
  out["status"] = record.result.status;
  out["stop"] = std::string(run::StopName(record.result.stop));
  out["fuel_used"] = record.result.fuel_used;
  out["record"] = run::RecordToJson(record);
  // The envelope's payload is base64 of the signed bytes, so the object may
  // be re-serialised freely without breaking the signature.
  out["receipt"] = json::parse(run::MakeReceipt(record, ctx.key));
  return ToolResult::Ok(std::move(out));
}

}  // namespace

std::vector<Tool> RunTools(std::shared_ptr<const ToolContext> context) {
  const char* common =
      " It runs sealed in a fresh jail on Ampoule's deterministic kernel: no network, no clock, no "
      "host files; /input holds the given inputs. The same code, inputs, stdin, seed and limits give "
      "the same output and fuel on every machine. The result carries a signed receipt that anyone can "
      "verify and replay (verify_receipt, `ampoule verify`).";
  std::vector<Tool> tools;
  tools.push_back({"run_python", "Run Python (sealed, with a receipt)",
                   std::string("Runs a Python 3 program.") + common,
                   InputSchema("code", "The Python program's source text."), RunOutputSchema(),
                   [context](const json& a) { return Run(*context, "python", a); }});
  tools.push_back({"run_javascript", "Run JavaScript (sealed, with a receipt)",
                   std::string("Runs a JavaScript program (QuickJS; print with console.log).") + common,
                   InputSchema("code", "The JavaScript program's source text."), RunOutputSchema(),
                   [context](const json& a) { return Run(*context, "js", a); }});
  tools.push_back({"run_wasm", "Run a WASI module (sealed, with a receipt)",
                   std::string("Runs a WebAssembly WASI command module (wasi_snapshot_preview1, _start).") +
                       common,
                   InputSchema("module_base64", "The .wasm module's bytes in base64."), RunOutputSchema(),
                   [context](const json& a) { return Run(*context, "wasm", a); }});
  return tools;
}

}  // namespace ampoule::mcp
