#include "ampoule/verify/default_runner.h"

namespace ampoule::verify {

Runner DefaultRunner() { return Runner(run::RunProgram); }

}  // namespace ampoule::verify
