#include "ampoule/wasi/wasi_context.h"

#include "ampoule/wasi/abi.h"

namespace ampoule::wasi {
namespace {

core::Status CheckStrings(const std::vector<std::string>& list, const char* what) {
  if (list.size() > kMaxArgsOrEnvEntries) {
    return core::Error{std::string("too many ") + what + " entries (" + std::to_string(list.size()) +
                 "; at most " + std::to_string(kMaxArgsOrEnvEntries) + ")"};
  }
  uint64_t bytes = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].find('\0') != std::string::npos) {
      return core::Error{std::string(what) + " entry " + std::to_string(i) + " contains a NUL byte"};
    }
    bytes += list[i].size() + 1;
  }
  if (bytes > kMaxArgsOrEnvBytes) {
    return core::Error{std::string(what) + " strings add up to " + std::to_string(bytes) +
                 " bytes; at most " + std::to_string(kMaxArgsOrEnvBytes) + " are allowed"};
  }
  return core::Status::Ok();
}

}  // namespace

core::Status ValidateWasiConfig(const WasiConfig& config) {
  CORE_RETURN_IF_ERROR(CheckStrings(config.args, "argument"));
  CORE_RETURN_IF_ERROR(CheckStrings(config.env, "environment"));
  for (const std::string& kv : config.env) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return core::Error{"environment entry \"" + kv + "\" is not of the form KEY=VALUE"};
    }
  }
  if (config.mailbox != nullptr && config.mailbox->preopens().size() > kMaxOpenFds - 3) {
    return core::Error{"too many preopened directories"};
  }
  return ValidateFsLimits(config.mailbox, config.fs_limits);
}

WasiContext::WasiContext(const WasiConfig& config, WasiEnvironment& env)
    : args_(config.args),
      environ_(config.env),
      stdin_(config.stdin_bytes),
      env_(env),
      stdout_(config.stdout_cap, config.stdout_sink),
      stderr_(config.stderr_cap, config.stderr_sink),
      vfs_(config.mailbox, config.fs_limits, config.epoch_ns) {
  uint32_t fd = 0;
  (void)fds_.Insert(FdEntry{FdEntry::Kind::kStdin, nullptr, {}, false, 0, 0, rights::kStdin, 0},
                    &fd);
  (void)fds_.Insert(FdEntry{FdEntry::Kind::kStdout, nullptr, {}, false, 0, 0, rights::kStdout, 0},
                    &fd);
  (void)fds_.Insert(FdEntry{FdEntry::Kind::kStderr, nullptr, {}, false, 0, 0, rights::kStdout, 0},
                    &fd);
  for (const Vfs::Root& root : vfs_.roots()) {
    FdEntry dir{FdEntry::Kind::kDirectory, root.node, root.guest_path, true, 0, 0,
                rights::kDirectory, rights::kDirectoryInheriting};
    (void)fds_.Insert(std::move(dir), &fd);
  }
}

void WasiContext::set_call_fuel(uint64_t fuel_used) {
  uint64_t now = 0;
  (void)env_.Now(abi::kClockRealtime, fuel_used, &now);
  vfs_.set_now(now);
}

}  // namespace ampoule::wasi
