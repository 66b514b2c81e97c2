// The state one WASI run works on: arguments, environment, descriptors,
// stdin, captured output, and the injected clock and random source.
//
// Made once per run from a WasiConfig; the calls in wasi_calls.h read and
// change it. Its filesystem (vfs.h) is built over the config's mailbox;
// the mailbox and the environment must outlive it.
//
// Thread safety: used by the run's one thread only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ampoule/wasi/fd_table.h"
#include "ampoule/wasi/mailbox.h"
#include "ampoule/wasi/output_capture.h"
#include "ampoule/wasi/vfs.h"
#include "ampoule/wasi/wasi_env.h"
#include "core/result.h"

namespace ampoule::wasi {

constexpr uint64_t kDefaultOutputCap = uint64_t(16) << 20;  // 16 MiB per stream
// Limits on what a run request may hand the guest through args/environ.
constexpr size_t kMaxArgsOrEnvEntries = 65536;
constexpr uint64_t kMaxArgsOrEnvBytes = uint64_t(16) << 20;

struct WasiConfig {
  std::vector<std::string> args;         // argv, including argv[0]
  std::vector<std::string> env;          // "KEY=VALUE" strings
  std::span<const uint8_t> stdin_bytes;  // must outlive the context
  const Mailbox* mailbox = nullptr;      // may be null: no preopens
  FsLimits fs_limits;                    // caps on what the guest may store
  uint64_t epoch_ns = kDefaultEpochNs;   // the mailbox's files' timestamps
  uint64_t stdout_cap = kDefaultOutputCap;
  uint64_t stderr_cap = kDefaultOutputCap;
  OutputSink stdout_sink;  // optional live view of kept stdout bytes
  OutputSink stderr_sink;
};

// Checks a config before a run: no NUL bytes inside args or env strings,
// env entries of the form KEY=VALUE with a non-empty key, the size limits
// above, and a mailbox within the filesystem caps. Errors name the
// offending entry or cap.
core::Status ValidateWasiConfig(const WasiConfig& config);

class WasiContext {
 public:
  // REQUIRES: ValidateWasiConfig(config).ok()
  WasiContext(const WasiConfig& config, WasiEnvironment& env);

  const std::vector<std::string>& args() const { return args_; }
  const std::vector<std::string>& environ() const { return environ_; }
  std::span<const uint8_t> stdin_bytes() const { return stdin_; }
  uint64_t& stdin_offset() { return stdin_offset_; }

  FdTable& fds() { return fds_; }
  WasiEnvironment& env() { return env_; }
  OutputCapture& stdout_capture() { return stdout_; }
  OutputCapture& stderr_capture() { return stderr_; }
  Vfs& vfs() { return vfs_; }
  // The fuel used when the current call began (set by the host glue), for
  // the virtual time files are stamped with.
  void set_call_fuel(uint64_t fuel_used);

 private:
  std::vector<std::string> args_;
  std::vector<std::string> environ_;
  std::span<const uint8_t> stdin_;
  uint64_t stdin_offset_ = 0;
  FdTable fds_;
  WasiEnvironment& env_;
  OutputCapture stdout_;
  OutputCapture stderr_;
  Vfs vfs_;
};

}  // namespace ampoule::wasi
