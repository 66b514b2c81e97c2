#include "ampoule/run/engine_execute.h"

#include "ampoule/kernel/kernel_format.h"
#include "ampoule/kernel/runtime_init.h"
#include "ampoule/run/output_files.h"
#include "ampoule/wasi/snapshot.h"
#include "ampoule/wasi/wasi_run.h"

namespace ampoule::run {
namespace {

EngineResult Failed(std::string message) {
  EngineResult r;
  r.error = std::move(message);
  return r;
}

EngineResult FromRunResult(wasi::RunResult& run) {
  EngineResult r;
  switch (run.stop) {
    case wasm::StopReason::kReturned: r.stop = Stop::kExit; break;
    case wasm::StopReason::kExit:
      r.stop = Stop::kExit;
      r.exit_code = run.exit_code;
      break;
    case wasm::StopReason::kTrap:
      r.stop = Stop::kTrap;
      r.trap = run.trap_message;
      break;
    case wasm::StopReason::kOutOfFuel: r.stop = Stop::kFuel; break;
  }
  r.fuel_used = run.fuel_used;
  r.memory_cap_hit = run.memory_cap_hit;
  r.stdout_total_bytes = run.stdout_total_bytes;
  r.stderr_total_bytes = run.stderr_total_bytes;
  r.http_pending = std::move(run.http_pending);
  for (wasi::OutputFile& f : run.files) {
    if (!CheckOutputName(f.name).ok() || r.outputs.size() >= kMaxOutputFiles) {
      ++r.outputs_left_out;
      continue;
    }
    r.outputs.push_back({std::move(f.name), std::string(f.bytes.begin(), f.bytes.end())});
    f.bytes = {};
  }
  return r;
}

// The parts of a run request every runtime shares.
void ApplyLimits(const EngineRequest& request, wasi::RunRequest& run) {
  run.stdin_bytes = request.stdin_bytes;
  run.seed = request.seed;
  run.fuel = request.fuel;
  run.limits.max_memory_bytes = request.memory_bytes;
  run.stdout_cap = request.output_cap_bytes;
  run.stderr_cap = request.output_cap_bytes;
  if (request.fs_bytes != 0) run.fs_limits.max_bytes = request.fs_bytes;
  if (request.fs_files != 0) run.fs_limits.max_nodes = request.fs_files;
  if (request.fs_depth != 0) run.fs_limits.max_depth = uint32_t(std::min<uint64_t>(request.fs_depth, UINT32_MAX));
  run.output_dir = std::string(kernel::kOutputDir);
  // The tool capability answers from the recorded exchanges, an input like
  // any other so that a receipt names their digest and a replay gets them.
  run.http.ask_host = request.http_ask_host;
  for (const ProgramInput& in : request.inputs) {
    if (in.name == wasi::kHttpExchangesInput) run.http.exchanges = in.bytes;
  }
}

core::Status AddInputs(const EngineRequest& request, wasi::Mailbox& mailbox) {
  for (const ProgramInput& in : request.inputs) {
    CORE_RETURN_IF_ERROR(mailbox.AddFile(kernel::kInputDir, in.name, in.bytes));
  }
  return core::Status::Ok();
}

core::Result<wasi::RunResult> RunRuntime(const kernel::Kernel& kernel, kernel::GuestRuntime runtime,
                                   const EngineRequest& request, wasi::OutputSink out, wasi::OutputSink err) {
  core::Result<wasi::RunRequest> run = kernel::RuntimeInitRequest(runtime, kernel);
  if (!run) return run.error();
  run->args = kernel::RuntimeMainArgs(runtime, request.program_name);
  CORE_RETURN_IF_ERROR(run->mailbox.AddFile(kernel::kProgramDir, request.program_name, request.program));
  CORE_RETURN_IF_ERROR(AddInputs(request, run->mailbox));
  ApplyLimits(request, *run);
  run->stdout_sink = std::move(out);
  run->stderr_sink = std::move(err);

  std::string_view module_entry = kernel::RuntimeModuleEntry(runtime);
  core::Result<std::span<const uint8_t>> wasm_bytes = kernel.Entry(module_entry);
  if (!wasm_bytes) return wasm_bytes.error();
  // Lazily: the kernel's runtimes were validated whole when it was packed,
  // and its digest pins their bytes (wasm/runtime.h, CompileOptions).
  core::Result<std::shared_ptr<const wasm::CompiledModule>> module =
      wasm::CompileModule(*wasm_bytes, {.lazy_functions = true});
  if (!module) return core::Error{"the kernel's " + std::string(module_entry) + " does not compile: " + module.message()};
  std::string_view snapshot_entry = kernel::RuntimeSnapshotEntry(runtime);
  if (!kernel.Has(snapshot_entry)) return wasi::RunWasiCommand(*module, *run);
  core::Result<std::span<const uint8_t>> snapshot = kernel.Entry(snapshot_entry);
  if (!snapshot) return snapshot.error();
  // The kernel's table holds the module's SHA-256, checked when the entry
  // was read: no need to hash the module again.
  wasi::Sha256Digest module_sha256{};
  for (const kernel::EntryRecord& e : kernel.entries()) {
    if (e.name == module_entry) module_sha256 = e.sha256;
  }
  return wasi::RunFromSnapshot(*module, module_sha256, *snapshot, *run);
}

core::Result<wasi::RunResult> RunWasm(const EngineRequest& request, wasi::OutputSink out, wasi::OutputSink err) {
  core::Result<std::shared_ptr<const wasm::CompiledModule>> module = wasm::CompileModule(request.program);
  if (!module) return core::Error{"the program '" + request.program_name + "' is not a valid WebAssembly module: " +
                            module.message()};
  wasi::RunRequest run;
  run.args = {request.program_name};
  CORE_RETURN_IF_ERROR(run.mailbox.AddPreopen(kernel::kInputDir));
  CORE_RETURN_IF_ERROR(run.mailbox.AddPreopen(kernel::kTmpDir));
  CORE_RETURN_IF_ERROR(run.mailbox.AddPreopen(kernel::kOutputDir));
  // The working directory, as for the runtimes (kernel/runtime_init.h).
  CORE_RETURN_IF_ERROR(run.mailbox.AddPreopen(kernel::kWorkDir));
  CORE_RETURN_IF_ERROR(AddInputs(request, run.mailbox));
  ApplyLimits(request, run);
  run.stdout_sink = std::move(out);
  run.stderr_sink = std::move(err);
  return wasi::RunWasiCommand(*module, run);
}

}  // namespace

EngineResult ExecuteRequest(const kernel::Kernel& kernel, const EngineRequest& request,
                            wasi::OutputSink stdout_sink, wasi::OutputSink stderr_sink) {
  core::Result<wasi::RunResult> run = core::Error{"unknown runtime '" + request.runtime + "'"};
  if (request.runtime == "wasm") {
    run = RunWasm(request, std::move(stdout_sink), std::move(stderr_sink));
  } else if (request.runtime == "python" || request.runtime == "js") {
    kernel::GuestRuntime runtime = request.runtime == "python" ? kernel::GuestRuntime::kPython : kernel::GuestRuntime::kJs;
    run = RunRuntime(kernel, runtime, request, std::move(stdout_sink), std::move(stderr_sink));
  }
  if (!run) return Failed(run.message());
  return FromRunResult(*run);
}

}  // namespace ampoule::run
