// Per-file and whole-run tallies of spec test verdicts, and their one-line
// text forms (the output format of `ampoule wasm spectest`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ampoule/spectest/runner.h"

namespace ampoule::spectest {

struct FileReport {
  std::string name;  // the script's file name, e.g. "i32.wast"
  uint64_t passed = 0;
  uint64_t failed = 0;
  uint64_t skipped = 0;
  std::vector<Verdict> failures;  // every kFail verdict, in order
  std::vector<Verdict> notes;     // kPass verdicts that carry a note
  std::map<std::string, uint64_t> skip_reasons;  // reason -> count
  // Set when the file did not run to the end: it could not be converted or
  // read, or the engine crashed or hung on it. Says what and where.
  std::string error;

  // Counts one verdict.
  void Add(const Verdict& v);
};

struct Totals {
  uint64_t passed = 0;
  uint64_t failed = 0;
  uint64_t skipped = 0;
  void Add(const FileReport& r) {
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
  }
};

// "i32.wast: 460 passed, 0 failed, 0 skipped", with " (<error>)" appended
// when the file did not run to the end.
std::string FormatFileLine(const FileReport& r);

// "  i32.wast:123: assert_return: <message>"
std::string FormatVerdictLine(const std::string& file, const Verdict& v);

// Exactly "N passed, N failed, N skipped".
std::string FormatTotals(const Totals& t);

}  // namespace ampoule::spectest
