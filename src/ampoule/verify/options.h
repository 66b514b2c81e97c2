// Command-line options of ampoule-verify (also `ampoule verify`).
//
//   ampoule-verify RECEIPT (--key PUB | --trusted-keys FILE) [--kernel K]
//                  [--program P] [--output O] [--output-file NAME=FILE ...]
//                  [--input NAME=FILE ...] [--stdin FILE]
//   ampoule-verify --replay RECEIPT --kernel K --program P [--key PUB]
//                  [--input NAME=FILE ...] [--stdin FILE] [--timeout SECONDS]
//                  [--max-fuel N] [--max-memory BYTES] [--max-timeout SECONDS]
//
// A replay runs what the receipt describes, and a receipt without a trusted
// signature can describe anything, so the verifier's own ceilings bound
// what a replay may cost (docs/cli.md, "Replay ceilings"): fuel (default
// 10^11, five times a run's default), guest memory (default 4 GiB, all a
// 32-bit memory can address), output cap (64 MiB, the file cap) and the
// wall-clock safety net (default 600 s). A receipt over a ceiling is not
// run: REPLAY FAILED says which ceiling and how to raise it.
//
// Parsing only checks the shape of the command line; files are read later,
// so that every problem is found and the most serious one decides (verdict.h).
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_read.h"
#include "core/result.h"

namespace ampoule::verify {

inline constexpr uint64_t kDefaultMaxReplayFuel = 100'000'000'000;
inline constexpr uint64_t kDefaultMaxReplayMemory = uint64_t{4} << 30;
inline constexpr double kDefaultMaxReplayTimeout = 600;

struct NamedFile {
  std::string name;  // the input's name in the receipt (a file name under /input)
  std::string path;
};

struct Options {
  bool help = false;
  bool replay = false;
  std::string receipt;
  std::vector<std::string> keys;          // --key, repeatable
  std::vector<std::string> trusted_keys;  // --trusted-keys, repeatable
  std::string kernel;
  std::string program;
  std::vector<std::string> outputs;  // --output: compared with the `stdout` subject
  std::vector<NamedFile> output_files;  // --output-file: compared with `output/NAME` subjects
  std::vector<NamedFile> inputs;
  std::optional<std::string> stdin_path;
  std::optional<double> timeout_seconds;  // replay: overrides the safety net only
  bool insecure_no_jail = false;          // replay: run without the jail (testing only)
  // Replay ceilings (see above), --max-fuel, --max-memory, --max-timeout.
  uint64_t max_replay_fuel = kDefaultMaxReplayFuel;
  uint64_t max_replay_memory = kDefaultMaxReplayMemory;
  double max_replay_timeout = kDefaultMaxReplayTimeout;
  // Who named the evidence paths: the trust gate reads paths an agent's
  // draft names, which must then be regular files (core/file_read.h).
  core::PathFrom paths_from = core::PathFrom::kUser;
};

// Parses the arguments after the command name. Errors describe the first
// problem (unknown option, missing value, missing RECEIPT, no key in verify
// mode, no --kernel or --program in replay mode). `--help` alone is help;
// with other arguments it is an error, so that exit 0 always means a verdict.
core::Result<Options> ParseOptions(std::span<const char* const> args);

// Splits an --input value: `NAME=FILE` when the text before the first '='
// is a plain file name (no '/'), else FILE named by its last path component.
core::Result<NamedFile> ParseInputArg(std::string_view value);

// The usage text, with `command` ("ampoule-verify" or "ampoule verify").
std::string Usage(std::string_view command);

}  // namespace ampoule::verify
