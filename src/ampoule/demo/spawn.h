// Running `ampoule` itself as a child process, for the demos: each step of a
// demo is the real subcommand a person would type, run by this same
// executable (/proc/self/exe), so what the demo prints is what the command
// printed.
//
// The child gets stdin from /dev/null, the parent's environment, and the
// given working folder. Its stdout and stderr are captured separately: the
// demo keeps a run's stdout as the output file a receipt signs.
//
// Not thread-safe with other code that forks or changes signal handling.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace ampoule::demo {

struct Captured {
  int exit_code = -1;      // the child's exit status, or 128 + signal
  std::string out;         // its stdout, byte for byte
  std::string err;         // its stderr
};

// Runs `/proc/self/exe args...` in `cwd`. An error only when the child could
// not be started or read; a failing command is a Captured with its status.
core::Result<Captured> RunSelf(const std::vector<std::string>& args, const std::string& cwd);

}  // namespace ampoule::demo
