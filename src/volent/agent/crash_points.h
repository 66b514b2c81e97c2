// The node's crash points (core/crash_point.h): a `volent node` with
// VOLENT_CRASH_AT=POINT[:N] kills itself at one of the agent loop's points
// (scripts/chaos.sh, docs/chaos.md).
#pragma once

namespace volent::agent {

inline constexpr char kNodeCrashEnv[] = "VOLENT_CRASH_AT";

}  // namespace volent::agent
