// Deliberate crashes at named points, for the tests of crash safety: with
// the environment variable `env` (each user names its own variable and
// points) set to POINT or POINT:N, the process kills itself
// with SIGKILL the Nth time (1-based; POINT alone: the first time) it
// reaches POINT. Unset (always, outside tests), CrashPoint only returns. It
// grants nothing: whoever sets a process's environment can kill it anyway.
//
// An armed process says so on stderr, and writes "crash point POINT #N
// reached" just before it dies (scripts/chaos.sh reads that line).
//
// Each variable is read once, at its first CrashPoint. Thread-safe.
#pragma once

#include <string_view>

namespace core {

void CrashPoint(const char* env, std::string_view point);

}  // namespace core
