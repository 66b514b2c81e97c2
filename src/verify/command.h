// The whole ampoule-verify command, shared by the `ampoule-verify` binary
// and `ampoule verify`: parse, gather facts, replay if asked, decide, print.
//
// Output contract (SPEC A6): explanations go to `err`, one line each,
// prefixed with the command name; exactly one result line goes to `out`,
// last; the return value is the exit code that line belongs to (verdict.h).
// `--help` alone prints the usage to `out` and returns 0 with no result line.
//
// Thread-safe if `runner` is.
#pragma once

#include <cstdio>
#include <span>
#include <string_view>

#include "verify/replay.h"

namespace ampoule::verify {

// Runs the command on `args` (the arguments after the command name).
// `command` names it in messages ("ampoule-verify" or "ampoule verify").
// `runner` runs replays (DefaultRunner() when null).
int RunVerifyCommand(std::span<const char* const> args, std::string_view command, FILE* out,
                     FILE* err, const Runner& runner = nullptr);

}  // namespace ampoule::verify
