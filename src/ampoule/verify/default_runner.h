// The runner a replay uses outside tests: the real sealed run.
#pragma once

#include "ampoule/verify/replay.h"

namespace ampoule::verify {

// run::RunProgram: a fresh jailed engine from the kernel file per replay.
Runner DefaultRunner();

}  // namespace ampoule::verify
