#include "ampoule/wasi/snapshot.h"

#include <algorithm>

#include "ampoule/wasi/snapshot_state.h"
#include "core/hex.h"
#include "core/sha256.h"

namespace ampoule::wasi {
namespace {

std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 400;
  std::string out(text.substr(0, kMax));
  if (text.size() > kMax) out += "...";
  return out;
}

core::Status CheckNoStartFunction(const wasm::CompiledModule& module) {
  if (module.module.start) {
    return core::Error{
        "the module has a start function, which would run again when a snapshot is restored; "
        "a snapshotted runtime must be a reactor without one"};
  }
  return core::Status::Ok();
}

// Two contexts' descriptors are the same if they name the same node: nodes
// are numbered alike in every tree built from the same mailbox.
bool SameFd(const FdEntry& a, const FdEntry& b) {
  bool same_node = a.node == nullptr ? b.node == nullptr
                                     : b.node != nullptr && a.node->inode == b.node->inode;
  return a.kind == b.kind && same_node && a.preopen_name == b.preopen_name &&
         a.preopen == b.preopen && a.offset == b.offset && a.fdflags == b.fdflags &&
         a.rights_base == b.rights_base && a.rights_inheriting == b.rights_inheriting;
}

// A snapshot keeps no WASI state but the clock: start-up must leave the
// descriptors, files, stdin and output as a fresh run has them.
core::Status CheckWasiStateUnchanged(WasiContext& ctx, const RunRequest& init_request) {
  if (ctx.vfs().change_count() != 0) {
    return core::Error{"the runtime's start-up changed its files (" +
                 std::to_string(ctx.vfs().change_count()) +
                 " changes), which a snapshot cannot keep; start-up must not write files"};
  }
  if (ctx.stdin_offset() != 0) {
    return core::Error{"the runtime's start-up read " + std::to_string(ctx.stdin_offset()) +
                 " bytes of stdin, which a snapshot cannot keep; start-up must not read stdin"};
  }
  for (auto [name, capture] : {std::pair{"stdout", &ctx.stdout_capture()},
                               std::pair{"stderr", &ctx.stderr_capture()}}) {
    if (capture->total_bytes() != 0) {
      return core::Error{"the runtime's start-up wrote " + std::to_string(capture->total_bytes()) +
                   " bytes to " + name + ", which a snapshot would lose: " +
                   Excerpt(capture->TakeData())};
    }
  }
  WasiConfig config;
  config.mailbox = &init_request.mailbox;
  DeterministicEnvironment unused_env({});
  WasiContext fresh(config, unused_env);
  for (uint32_t fd = 0; fd < kMaxOpenFds; ++fd) {
    const FdEntry* now = ctx.fds().Get(fd);
    const FdEntry* then = fresh.fds().Get(fd);
    if (now == nullptr && then == nullptr) continue;
    if (then == nullptr) {
      return core::Error{"the runtime's start-up left descriptor " + std::to_string(fd) +
                   " open; a snapshot can only be taken with nothing open but stdin, stdout, "
                   "stderr and the preopened directories"};
    }
    if (now == nullptr || !SameFd(*now, *then)) {
      return core::Error{"the runtime's start-up closed or changed descriptor " + std::to_string(fd) +
                   (then->preopen ? " (preopen " + then->preopen_name + ")" : std::string()) +
                   "; a snapshot needs stdin, stdout, stderr and the preopened directories as a "
                   "run starts with them"};
    }
  }
  return core::Status::Ok();
}

// Why start-up did not finish, with the start of what the guest wrote to
// stderr (where a runtime says what went wrong).
core::Error StartupFailed(RunSession& session, std::string_view step, const wasm::Outcome& outcome) {
  RunResult r;
  session.Finish(outcome, r);
  std::string message = "the runtime's start-up failed in " + std::string(step) + " (" +
                        DescribeStop(r) + "), so there is no snapshot";
  if (!r.stderr_data.empty()) message += "; its stderr: " + Excerpt(r.stderr_data);
  return core::Error{message};
}

std::vector<std::string> PreopenPaths(const Mailbox& mailbox) {
  std::vector<std::string> out;
  for (const Preopen& p : mailbox.preopens()) out.push_back(p.guest_path);
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", \"" : "\"") + v[i] + "\"";
  return out + "]";
}

// The request must show the guest what its start-up saw and may have cached.
core::Status CheckRequestMatches(const SnapshotImage& image, const RunRequest& request) {
  if (request.env != image.env) {
    return core::Error{"the run's environment " + Join(request.env) +
                 " differs from the one the snapshot was made with " + Join(image.env) +
                 "; the runtime read it at start-up, so a run from this snapshot must use the "
                 "same"};
  }
  std::vector<std::string> preopens = PreopenPaths(request.mailbox);
  if (preopens != image.preopens) {
    return core::Error{"the run's preopened directories " + Join(preopens) +
                 " differ from the ones the snapshot was made with " + Join(image.preopens) +
                 "; a run from this snapshot must preopen the same guest paths in the same order"};
  }
  for (const SnapshotMemory& m : image.memories) {
    uint64_t size = uint64_t(m.pages) * wasm::kPageSize;
    if (size > request.limits.max_memory_bytes) {
      return core::Error{"memory limit below the runtime's start-up size of " +
                   std::to_string(size) + " bytes (the limit is " +
                   std::to_string(request.limits.max_memory_bytes) + " bytes)"};
    }
  }
  return core::Status::Ok();
}

core::Result<wasm::FunctionInstance*> FindMain(RunSession& session) {
  core::Result<wasm::FunctionInstance*> main = session.FindFunction("ampoule_main", ReactorStatusType());
  if (!main) return main.error();
  if (*main == nullptr) {
    return core::Error{"the module exports no \"ampoule_main\" function, so it is not a reactor a "
                 "snapshot can be made of or run from"};
  }
  return *main;
}

}  // namespace

Sha256Digest ModuleSha256(const wasm::CompiledModule& module) { return core::Sha256(module.module.bytes); }

core::Result<std::vector<uint8_t>> MakeSnapshot(std::shared_ptr<const wasm::CompiledModule> module,
                                          const RunRequest& init_request) {
  CORE_RETURN_IF_ERROR(CheckNoStartFunction(*module));
  core::Result<std::unique_ptr<RunSession>> started = RunSession::Start(module, init_request);
  if (!started) return started.error();
  RunSession& session = **started;
  if (session.instance() == nullptr) {
    return StartupFailed(session, "instantiation", session.instantiate_outcome());
  }
  CORE_RETURN_IF_ERROR(FindMain(session).status());
  core::Result<wasm::FunctionInstance*> initialize =
      session.FindFunction("_initialize", ReactorVoidType());
  if (!initialize) return initialize.error();
  core::Result<wasm::FunctionInstance*> init = session.FindFunction("ampoule_init", ReactorStatusType());
  if (!init) return init.error();
  if (*initialize != nullptr) {
    wasm::Outcome o = session.store().Invoke(*initialize, {});
    if (o.stop != wasm::StopReason::kReturned) return StartupFailed(session, "_initialize", o);
  }
  if (*init != nullptr) {
    wasm::Outcome o = session.CallStatusFunction(*init);
    if (o.stop != wasm::StopReason::kReturned) return StartupFailed(session, "ampoule_init", o);
  }
  CORE_RETURN_IF_ERROR(CheckWasiStateUnchanged(session.context(), init_request));

  SnapshotImage image;
  CORE_RETURN_IF_ERROR(CaptureInstance(*session.instance(), image));
  image.module_sha256 = ModuleSha256(*module);
  image.fuel = session.store().fuel_used();
  image.slept_ns = session.environment().slept_ns();
  image.env = init_request.env;
  image.preopens = PreopenPaths(init_request.mailbox);
  return SerializeSnapshot(image);
}

core::Result<RunResult> RunFromSnapshot(std::shared_ptr<const wasm::CompiledModule> module,
                                  std::span<const uint8_t> snapshot, const RunRequest& request) {
  return RunFromSnapshot(module, ModuleSha256(*module), snapshot, request);
}

core::Result<RunResult> RunFromSnapshot(std::shared_ptr<const wasm::CompiledModule> module,
                                  const Sha256Digest& module_sha256,
                                  std::span<const uint8_t> snapshot, const RunRequest& request) {
  core::Result<SnapshotImage> image = ParseSnapshot(snapshot);
  if (!image) return image.error();
  if (image->module_sha256 != module_sha256) {
    return core::Error{"the snapshot was made for another module (sha256 " + core::HexEncode(image->module_sha256) +
                 "), not this one (sha256 " + core::HexEncode(module_sha256) + ")"};
  }
  CORE_RETURN_IF_ERROR(CheckNoStartFunction(*module));
  CORE_RETURN_IF_ERROR(CheckRequestMatches(*image, request));

  DeterministicEnvironmentOptions clock;
  clock.base_fuel = image->fuel;
  clock.base_slept_ns = image->slept_ns;
  core::Result<std::unique_ptr<RunSession>> started = RunSession::Start(module, request, clock);
  if (!started) return started.error();
  RunSession& session = **started;
  if (session.instance() == nullptr) {
    return core::Error{"the module did not instantiate: " + session.instantiate_outcome().message};
  }
  core::Result<wasm::FunctionInstance*> main = FindMain(session);
  if (!main) return main.error();
  CORE_RETURN_IF_ERROR(RestoreInstance(*image, *session.instance()));

  session.store().set_fuel(request.fuel);  // the run's fuel counts ampoule_main only
  RunResult result;
  session.Finish(session.CallStatusFunction(*main), result);
  return result;
}

}  // namespace ampoule::wasi
