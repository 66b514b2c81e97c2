// ampoule verify: the same command as the ampoule-verify binary (docs/cli.md),
// reachable from the main tool. The logic lives in src/ampoule/verify/command.h.
#include <cstdio>

#include "ampoule/cli/commands.h"
#include "ampoule/verify/command.h"

namespace ampoule::cli {

int VerifyCommand(Args args) {
  return verify::RunVerifyCommand(args, "ampoule verify", stdout, stderr);
}

}  // namespace ampoule::cli
