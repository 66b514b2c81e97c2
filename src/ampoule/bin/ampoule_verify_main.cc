// ampoule-verify: checks a receipt, and with --replay re-runs it (docs/cli.md).
// A thin front end: the logic, the exit codes and the output contract live
// in src/ampoule/verify (command.h, verdict.h).
#include <cstdio>
#include <span>

#include "ampoule/verify/command.h"

int main(int argc, char** argv) {
  return ampoule::verify::RunVerifyCommand(std::span<const char* const>(argv + 1, argc - 1),
                                           "ampoule-verify", stdout, stderr);
}
