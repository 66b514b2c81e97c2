// Test support for the jail tests: runs a probe program from
// AMPOULE_JAIL_HELPER_DIR in a jail and collects its output; skips tests
// that need a jail where none can be made.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ampoule/sandbox/jail.h"
#include "core/unique_fd.h"
#include "core/write_all.h"

namespace ampoule::testing {

// Whether this machine can make a jail, asked once per test program.
inline const core::Status& JailSupport() {
  static const core::Status status = CheckJailSupported();
  return status;
}

// A fixture for tests that need a jail: they are skipped, with the reason,
// where none can be made (JailSupportCanaryTest fails there instead).
class JailFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!JailSupport().ok()) GTEST_SKIP() << JailSupport().message();
  }
};

inline std::string HelperPath(const std::string& name) {
  return std::string(AMPOULE_JAIL_HELPER_DIR) + "/" + name;
}

// The helper's bytes in a memfd, as the host does with the kernel's engine.
inline core::UniqueFd HelperMemfd(const std::string& name) {
  core::UniqueFd file(open(HelperPath(name).c_str(), O_RDONLY | O_CLOEXEC));
  core::UniqueFd mem(memfd_create(name.c_str(), MFD_CLOEXEC));
  if (!file.valid() || !mem.valid()) return core::UniqueFd();
  char buffer[65536];
  ssize_t n;
  while ((n = read(file.get(), buffer, sizeof buffer)) > 0) {
    if (!core::WriteAll(mem.get(), std::string_view(buffer, size_t(n)))) return core::UniqueFd();
  }
  return mem;
}

// Reads until end-of-file (every writer closed it) or `wait` passes.
// Returns std::nullopt if the pipe was still open at the end.
inline std::optional<std::string> ReadToEof(int fd, std::chrono::milliseconds wait) {
  std::string out;
  const auto end = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    pollfd pfd{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&pfd, 1, static_cast<int>(left.count())) <= 0)
      return std::nullopt;
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) return out;
    out.append(buffer, n);
  }
}

struct ProbeRun {
  std::optional<JailExit> exit;  // empty if spawning failed
  std::string spawn_error;
  std::string output;            // stdout and stderr
  bool output_closed = false;    // every process holding the pipe is gone
};

// Runs `program` (from the helper directory, through a memfd) with `args`,
// stdin `input`, stdout and stderr into one pipe.
inline ProbeRun RunProbe(const std::string& program, std::vector<std::string> args,
                         const JailOptions& options = {},
                         std::optional<std::chrono::milliseconds> deadline = std::nullopt,
                         const std::string& input = "") {
  ProbeRun run;
  core::UniqueFd exe = HelperMemfd(program);
  int in[2], out[2];
  if (!exe.valid() || pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    run.spawn_error = "test set-up failed";
    return run;
  }
  core::UniqueFd in_read(in[0]), in_write(in[1]), out_read(out[0]), out_write(out[1]);
  if (!core::WriteAll(in_write.get(), input)) {
    run.spawn_error = "test set-up failed";
    return run;
  }
  in_write.reset();
  args.insert(args.begin(), program);
  const int fds[] = {in_read.get(), out_write.get(), out_write.get()};
  const auto start = std::chrono::steady_clock::now();
  core::Result<JailedProcess> process = SpawnJailed(exe.get(), fds, args, options);
  out_write.reset();
  in_read.reset();
  if (!process.ok()) {
    run.spawn_error = process.message();
    return run;
  }
  std::optional<std::chrono::steady_clock::time_point> at;
  if (deadline) at = start + *deadline;
  core::Result<JailExit> exit = WaitJailed(*process, at);
  if (!exit.ok()) {
    run.spawn_error = exit.message();
    return run;
  }
  run.exit = *exit;
  std::optional<std::string> output = ReadToEof(out_read.get(), std::chrono::seconds(5));
  run.output_closed = output.has_value();
  run.output = output.value_or("");
  return run;
}

}  // namespace ampoule::testing
