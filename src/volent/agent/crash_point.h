// Deliberate crashes at named points of the agent loop, for the chaos test
// (scripts/chaos.sh, docs/agent-runs.md): with VOLENT_CRASH_AT=POINT:N in
// the environment, the node kills itself with SIGKILL the Nth time (1-based)
// it reaches POINT. Unset (always, outside tests), CrashPoint only counts
// nothing and returns. It grants nothing: whoever sets a process's
// environment can kill it anyway.
//
// Points: before-intent, after-intent, after-effect, mid-commit, replay.
//
// Thread-safe.
#pragma once

#include <string_view>

namespace volent::agent {

inline constexpr char kCrashEnv[] = "VOLENT_CRASH_AT";

void CrashPoint(std::string_view point);

}  // namespace volent::agent
