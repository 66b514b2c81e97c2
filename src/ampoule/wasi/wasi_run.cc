#include "ampoule/wasi/wasi_run.h"

#include <algorithm>

namespace ampoule::wasi {
namespace {

WasiConfig MakeConfig(const RunRequest& request) {
  WasiConfig config;
  config.args = request.args;
  config.env = request.env;
  config.stdin_bytes = request.stdin_bytes;
  config.mailbox = &request.mailbox;
  config.fs_limits = request.fs_limits;
  config.epoch_ns = request.epoch_ns;
  config.stdout_cap = request.stdout_cap;
  config.stderr_cap = request.stderr_cap;
  config.stdout_sink = request.stdout_sink;
  config.stderr_sink = request.stderr_sink;
  return config;
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

// Appends the regular files below directory `dir` (named `prefix` + name)
// in name order.
void CollectFiles(const VfsNode& dir, const std::string& prefix, std::vector<OutputFile>& out) {
  for (const auto& [name, entry] : dir.entries) {
    const VfsNode& node = *entry.node;
    if (node.is_dir()) {
      CollectFiles(node, prefix + name + "/", out);
    } else if (node.is_file()) {
      out.push_back(OutputFile{prefix + name, {node.bytes().begin(), node.bytes().end()}});
    }
  }
}

// Runs a reactor: _initialize, ampoule_init, ampoule_main, stopping at the
// first that does not return normally with status 0.
core::Result<wasm::Outcome> RunReactor(RunSession& session, wasm::FunctionInstance* main) {
  core::Result<wasm::FunctionInstance*> initialize =
      session.FindFunction("_initialize", ReactorVoidType());
  if (!initialize) return initialize.error();
  core::Result<wasm::FunctionInstance*> init = session.FindFunction("ampoule_init", ReactorStatusType());
  if (!init) return init.error();
  if (*initialize != nullptr) {
    wasm::Outcome o = session.store().Invoke(*initialize, {});
    if (o.stop != wasm::StopReason::kReturned) return o;
  }
  if (*init != nullptr) {
    wasm::Outcome o = session.CallStatusFunction(*init);
    if (o.stop != wasm::StopReason::kReturned) return o;
  }
  return session.CallStatusFunction(main);
}

}  // namespace

const wasm::FuncType& ReactorVoidType() {
  static const wasm::FuncType kType{};
  return kType;
}

const wasm::FuncType& ReactorStatusType() {
  static const wasm::FuncType kType{{}, {wasm::ValType::I32}};
  return kType;
}

RunSession::RunSession(const RunRequest& request,
                       const DeterministicEnvironmentOptions& env_options, const WasiConfig& config)
    : env_(env_options),
      ctx_(config, env_),
      store_(request.limits),
      host_(store_, ctx_),
      http_(store_, request.http),
      output_dir_(request.output_dir) {}

core::Result<std::unique_ptr<RunSession>> RunSession::Start(
    std::shared_ptr<const wasm::CompiledModule> module, const RunRequest& request,
    const DeterministicEnvironmentOptions& clock_base) {
  WasiConfig config = MakeConfig(request);
  CORE_RETURN_IF_ERROR(ValidateWasiConfig(config));
  DeterministicEnvironmentOptions env_options = clock_base;
  env_options.seed = request.seed;
  env_options.epoch_ns = request.epoch_ns;
  env_options.ns_per_fuel = 1;
  std::unique_ptr<RunSession> session(new RunSession(request, env_options, config));
  core::Result<std::vector<wasm::Extern>> imports = session->host_.LinkImports(module->module, &session->http_);
  if (!imports) return imports.error();

  session->store_.set_fuel(request.fuel);
  wasm::InstantiateResult inst = session->store_.Instantiate(module, *imports);
  if (inst.kind == wasm::InstantiateResult::Kind::kLinkError) return core::Error{inst.message};
  if (inst.kind == wasm::InstantiateResult::Kind::kTrap) {
    session->instantiate_outcome_ = std::move(inst.outcome);
  } else {
    session->instance_ = inst.instance;
  }
  return session;
}

core::Result<wasm::FunctionInstance*> RunSession::FindFunction(std::string_view name,
                                                         const wasm::FuncType& want) const {
  std::optional<wasm::Extern> ext = instance_->GetExport(name);
  if (!ext) return static_cast<wasm::FunctionInstance*>(nullptr);
  if (ext->kind != wasm::ExternKind::Func) {
    return core::Error{"the module's \"" + std::string(name) + "\" export is a " +
                 wasm::ExternKindName(ext->kind) + ", not a function"};
  }
  if (*ext->func->type != want) {
    return core::Error{"the module's \"" + std::string(name) + "\" export has type " +
                 wasm::FuncTypeToString(*ext->func->type) + "; it should be " +
                 wasm::FuncTypeToString(want)};
  }
  return ext->func;
}

wasm::Outcome RunSession::CallStatusFunction(wasm::FunctionInstance* func) {
  wasm::Outcome o = store_.Invoke(func, {});
  if (o.stop == wasm::StopReason::kReturned) {
    int32_t status = o.results.empty() ? 0 : int32_t(o.results[0].i32());
    o.results.clear();
    if (status != 0) {
      o.stop = wasm::StopReason::kExit;
      o.exit_code = status;
    }
  }
  return o;
}

void RunSession::Finish(const wasm::Outcome& outcome, RunResult& result) {
  result.stop = outcome.stop;
  if (outcome.stop == wasm::StopReason::kExit) result.exit_code = outcome.exit_code;
  if (outcome.stop == wasm::StopReason::kTrap) {
    result.trap = outcome.trap;
    result.trap_message =
        outcome.message.empty() ? wasm::TrapMessage(outcome.trap) : outcome.message;
  }
  result.fuel_used = store_.fuel_used();
  if (instance_ != nullptr) {
    for (const wasm::MemoryInstance* m : instance_->memories) result.memory_cap_hit |= m->cap_hit;
  }
  RecordOutput(ctx_, result);
  result.http_pending = http_.pending();
  if (output_dir_.empty()) return;
  for (const Vfs::Root& root : ctx_.vfs().roots()) {
    if (root.guest_path == output_dir_) CollectFiles(*root.node, "", result.files);
  }
  // Whole names in byte order ("a-b" before "a/c", which a walk would swap).
  std::sort(result.files.begin(), result.files.end(),
            [](const OutputFile& x, const OutputFile& y) { return x.name < y.name; });
}

core::Result<RunResult> RunWasiCommand(std::shared_ptr<const wasm::CompiledModule> module,
                                 const RunRequest& request) {
  core::Result<std::unique_ptr<RunSession>> started = RunSession::Start(module, request);
  if (!started) return started.error();
  RunSession& session = **started;

  RunResult result;
  if (session.instance() == nullptr) {  // the start function or a segment stopped the run
    session.Finish(session.instantiate_outcome(), result);
    return result;
  }
  core::Result<wasm::FunctionInstance*> start = session.FindFunction("_start", ReactorVoidType());
  if (!start) return start.error();
  if (*start != nullptr) {
    session.Finish(session.store().Invoke(*start, {}), result);
    return result;
  }
  core::Result<wasm::FunctionInstance*> main = session.FindFunction("ampoule_main", ReactorStatusType());
  if (!main) return main.error();
  if (*main == nullptr) {
    return core::Error{
        "the module exports neither \"_start\" (a WASI command) nor \"ampoule_main\" (an "
        "ampoule reactor), so there is nothing to run; build it as an executable, or export "
        "ampoule_main from a reactor"};
  }
  core::Result<wasm::Outcome> outcome = RunReactor(session, *main);
  if (!outcome) return outcome.error();
  session.Finish(*outcome, result);
  return result;
}

core::Result<RunResult> RunWasiCommand(std::span<const uint8_t> wasm_bytes, const RunRequest& request) {
  core::Result<std::shared_ptr<const wasm::CompiledModule>> module = wasm::CompileModule(wasm_bytes);
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
