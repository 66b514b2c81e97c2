// The whole ampoule-verify command, shared by the `ampoule-verify` binary
// and `ampoule verify`: parse, gather facts, replay if asked, decide, print.
//
// Output contract (docs/cli.md): explanations go to `err`, one line each,
// prefixed with the command name; exactly one result line goes to `out`,
// last; the return value is the exit code that line belongs to (verdict.h).
// `--help` alone prints the usage to `out` and returns 0 with no result line.
//
// Thread-safe if `runner` is.
#pragma once

#include <cstdio>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/verify/evidence.h"
#include "ampoule/verify/options.h"
#include "ampoule/verify/replay.h"
#include "ampoule/verify/verdict.h"

namespace ampoule::verify {

// The command's exit codes (docs/cli.md), a public contract: the table in
// verdict.h, one code per conclusion.
enum ExitCode : int {
  kExitVerified = 0,
  kExitFailed = 1,
  kExitUsage = 2,
  kExitNotReplayable = 3,
  kExitRunFailed = 4,
  kExitIncomplete = 5,
  kExitTooLarge = 6,
};

// The exit code of `conclusion`: the only place the two meet.
int ExitCodeFor(Conclusion conclusion);

// The outcome of a check, for library callers (the trust gate): the verdict
// a command would print, the explanations, and the record the receipt
// carries once it was accepted (signature valid; in a keyless replay, well
// formed), whatever the verdict. Only Conclusion::kVerified is a pass.
struct CheckOutcome {
  Verdict verdict;
  Facts facts;  // what the verdict was decided from
  std::vector<std::string> notes;
  std::optional<run::RunRecord> record;
};

// Checks (and with options.replay, replays) as the command does, printing
// nothing. `runner` runs replays (DefaultRunner() when null).
CheckOutcome RunCheck(const Options& options, const Runner& runner = nullptr);

// As RunCheck, on files already read (ReadSnapshot with the same paths):
// what a caller uses that checks one snapshot more than once.
CheckOutcome CheckSnapshot(const Options& options, const Snapshot& files, const Runner& runner = nullptr);

// Runs the command on `args` (the arguments after the command name).
// `command` names it in messages ("ampoule-verify" or "ampoule verify").
// `runner` runs replays (DefaultRunner() when null).
int RunVerifyCommand(std::span<const char* const> args, std::string_view command, FILE* out,
                     FILE* err, const Runner& runner = nullptr);

}  // namespace ampoule::verify
