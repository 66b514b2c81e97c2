// The gate's crash points (core/crash_point.h): `ampoule gate submit` with
// AMPOULE_GATE_CRASH_AT=POINT[:N] kills itself at after-check, in-commit,
// after-commit or after-deliver (tests/gate/gate_crash.sh, docs/gate.md).
#pragma once

namespace ampoule::gate {

inline constexpr char kGateCrashEnv[] = "AMPOULE_GATE_CRASH_AT";

}  // namespace ampoule::gate
