#include "wasi/wasi_run.h"

#include "wasi/wasi_host.h"

namespace ampoule::wasi {
namespace {

Result<wasm::FunctionInstance*> FindStart(const wasm::Instance& instance) {
  std::optional<wasm::Extern> start = instance.GetExport("_start");
  if (!start || start->kind != wasm::ExternKind::Func) {
    return Error{
        "the module exports no \"_start\" function, so it is not a WASI command "
        "(build it as an executable, not a library or reactor)"};
  }
  if (!start->func->type->params.empty() || !start->func->type->results.empty()) {
    return Error{"the module's \"_start\" export has type " +
                 wasm::FuncTypeToString(*start->func->type) +
                 "; a WASI command's _start takes and returns nothing"};
  }
  return start->func;
}

// Fills the stop fields of `result` from an engine outcome.
void RecordOutcome(const wasm::Outcome& outcome, RunResult& result) {
  result.stop = outcome.stop;
  if (outcome.stop == wasm::StopReason::kExit) result.exit_code = outcome.exit_code;
  if (outcome.stop == wasm::StopReason::kTrap) {
    result.trap = outcome.trap;
    result.trap_message =
        outcome.message.empty() ? wasm::TrapMessage(outcome.trap) : outcome.message;
  }
}

void RecordOutput(WasiContext& ctx, RunResult& result) {
  OutputCapture& out = ctx.stdout_capture();
  OutputCapture& err = ctx.stderr_capture();
  result.stdout_total_bytes = out.total_bytes();
  result.stderr_total_bytes = err.total_bytes();
  result.stdout_truncated = out.truncated();
  result.stderr_truncated = err.truncated();
  result.stdout_data = out.TakeData();
  result.stderr_data = err.TakeData();
}

}  // namespace

Result<RunResult> RunWasiCommand(std::shared_ptr<const wasm::CompiledModule> module,
                                 const RunRequest& request) {
  WasiConfig config;
  config.args = request.args;
  config.env = request.env;
  config.stdin_bytes = request.stdin_bytes;
  config.mailbox = &request.mailbox;
  config.stdout_cap = request.stdout_cap;
  config.stderr_cap = request.stderr_cap;
  config.stdout_sink = request.stdout_sink;
  config.stderr_sink = request.stderr_sink;
  AMP_RETURN_IF_ERROR(ValidateWasiConfig(config));

  DeterministicEnvironment env({request.seed, request.epoch_ns, 1});
  WasiContext ctx(config, env);
  ctx.set_file_time_ns(request.epoch_ns);
  wasm::Store store(request.limits);
  WasiHost host(store, ctx);
  Result<std::vector<wasm::Extern>> imports = host.LinkImports(module->module);
  if (!imports) return imports.error();

  store.set_fuel(request.fuel);
  wasm::InstantiateResult inst = store.Instantiate(module, *imports);
  if (inst.kind == wasm::InstantiateResult::Kind::kLinkError) return Error{inst.message};

  RunResult result;
  if (inst.kind == wasm::InstantiateResult::Kind::kTrap) {
    RecordOutcome(inst.outcome, result);  // the start function or a segment stopped the run
  } else {
    Result<wasm::FunctionInstance*> start = FindStart(*inst.instance);
    if (!start) return start.error();
    RecordOutcome(store.Invoke(*start, {}), result);
  }
  result.fuel_used = store.fuel_used();
  if (inst.instance != nullptr) {
    for (const wasm::MemoryInstance* m : inst.instance->memories)
      result.memory_cap_hit |= m->cap_hit;
  }
  RecordOutput(ctx, result);
  return result;
}

Result<RunResult> RunWasiCommand(std::span<const uint8_t> wasm_bytes, const RunRequest& request) {
  Result<std::shared_ptr<const wasm::CompiledModule>> module = wasm::CompileModule(wasm_bytes);
  if (!module) return module.error();
  return RunWasiCommand(*module, request);
}

std::string DescribeStop(const RunResult& result) {
  switch (result.stop) {
    case wasm::StopReason::kReturned: return "returned";
    case wasm::StopReason::kExit: return "exit " + std::to_string(result.exit_code);
    case wasm::StopReason::kTrap: return "trap: " + result.trap_message;
    case wasm::StopReason::kOutOfFuel: return "out of fuel";
  }
  return "unknown";
}

}  // namespace ampoule::wasi
