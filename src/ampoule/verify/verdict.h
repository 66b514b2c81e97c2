// The verdict of ampoule-verify: the table of docs/cli.md as one pure function.
//
// Checking a receipt gathers facts (what went wrong, what the signed run
// says); Decide turns them into a conclusion and the one final result line
// printed on stdout. The exit codes belong to the command (command.h maps
// each conclusion to its code); library callers branch on the conclusion. Keeping the decision apart from the I/O means the
// precedence can be tested over every combination of facts.
//
//   exit  verify            verify --replay
//   0     VERIFIED          REPLAY OK
//   1     FAILED            REPLAY FAILED: <reason>
//   2     ERROR: <reason>   ERROR: <reason>       usage, I/O, weak or malformed key
//   3     NOT REPLAYABLE    REPLAY N/A            the host stopped the run (terminated)
//   4     RUN FAILED        REPLAY MATCHED, RUN FAILED   status != 0
//   5     INCOMPLETE        (never)               no --kernel: kernel not pinned
//   6     TOO LARGE: <file> TOO LARGE: <file>     a file over 64 MiB
//
// When several apply the most serious wins: 2 > 6 > 1 > 3 > 4 > 5 > 0 (docs/cli.md
// ranks 2 and 6 together; a usage error is reported first because the
// command was not understood). VERIFIED and REPLAY OK appear only on exit 0.
//
// Thread-safe: no state.
#pragma once

#include <optional>
#include <string>

namespace ampoule::verify {

// What checking concluded: one per row of the table above.
enum class Conclusion {
  kVerified,       // VERIFIED, REPLAY OK
  kFailed,         // FAILED, REPLAY FAILED
  kUnusable,       // ERROR: usage, I/O, a weak or malformed key
  kNotReplayable,  // the host stopped the run
  kRunFailed,      // the run's status is not 0
  kIncomplete,     // verify without --kernel
  kTooLarge,       // a file over the size limit
};

enum class Mode { kVerify, kReplay };

// What checking found. Each optional holds the first reason of its kind
// (one line, no newline); the booleans describe the signed run and are only
// meaningful once the receipt has been accepted.
struct Facts {
  std::optional<std::string> usage;      // exit 2
  std::optional<std::string> too_large;  // exit 6
  std::optional<std::string> failed;     // exit 1: bad signature, a file that does not match, ...
  bool terminated = false;               // exit 3: result.terminated
  bool run_failed = false;               // exit 4: result.status != 0
  bool kernel_pinned = false;            // verify: --kernel given and matched (else exit 5)
  bool replay_matched = false;           // replay: the re-run matched the receipt
};

struct Verdict {
  Conclusion conclusion;
  std::string line;  // the final result line, without newline
  bool verified() const { return conclusion == Conclusion::kVerified; }
};

// The conclusion and result line for `facts` in `mode`. In replay mode a
// verdict of 0 also requires replay_matched (a replay that did not run is
// never REPLAY OK); kernel_pinned is ignored, since a replay always runs the
// kernel it is given.
Verdict Decide(Mode mode, const Facts& facts);

// Records `reason` into `slot` unless an earlier reason is there already.
void Note(std::optional<std::string>& slot, std::string reason);

}  // namespace ampoule::verify
