// Named points in `ampoule gate submit` where a test can make the process
// die with SIGKILL, to show that a crash anywhere loses no decision and
// sends nothing twice (tests/gate/gate_crash.sh).
//
// The point to die at comes from the environment variable
// AMPOULE_GATE_CRASH_AT; unset (always, outside tests) it does nothing.
//
// Thread-safe.
#pragma once

namespace ampoule::gate {

// Kills this process with SIGKILL if AMPOULE_GATE_CRASH_AT equals `name`.
void CrashPoint(const char* name);

}  // namespace ampoule::gate
