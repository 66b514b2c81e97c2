// The runner a replay uses outside tests: the real sealed run.
#pragma once

#include "verify/replay.h"

namespace ampoule::verify {

// run::RunProgram when this build has it; otherwise a runner whose every
// call fails with a message saying that replay is not available.
Runner DefaultRunner();

}  // namespace ampoule::verify
