// Command-line options of ampoule-verify (also `ampoule verify`).
//
//   ampoule-verify RECEIPT (--key PUB | --trusted-keys FILE) [--kernel K]
//                  [--program P] [--output O] [--input NAME=FILE ...] [--stdin FILE]
//   ampoule-verify --replay RECEIPT --kernel K --program P [--key PUB]
//                  [--input NAME=FILE ...] [--stdin FILE] [--timeout SECONDS]
//
// Parsing only checks the shape of the command line; files are read later,
// so that every problem is found and the most serious one decides (verdict.h).
//
// Thread-safe: no state.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ampoule::verify {

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
  std::vector<NamedFile> inputs;
  std::optional<std::string> stdin_path;
  std::optional<double> timeout_seconds;  // replay: overrides the safety net only
  bool insecure_no_jail = false;          // replay: run without the jail (testing only)
};

// Parses the arguments after the command name. Errors describe the first
// problem (unknown option, missing value, missing RECEIPT, no key in verify
// mode, no --kernel or --program in replay mode). `--help` alone is help;
// with other arguments it is an error, so that exit 0 always means a verdict.
Result<Options> ParseOptions(std::span<const char* const> args);

// Splits an --input value: `NAME=FILE` when the text before the first '='
// is a plain file name (no '/'), else FILE named by its last path component.
Result<NamedFile> ParseInputArg(std::string_view value);

// The usage text, with `command` ("ampoule-verify" or "ampoule verify").
std::string Usage(std::string_view command);

}  // namespace ampoule::verify
