// A whole spec test run: find the scripts, convert them, run each (in its
// own child process by default) and report per file.
//
// REQUIRES: called with no other threads running (each script is forked).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ampoule/spectest/report.h"
#include "core/result.h"

namespace ampoule::spectest {

struct SuiteOptions {
  std::vector<std::string> inputs;  // folders (their *.wast files), .wast or .json files
  std::string cache_dir;            // empty: convert into a scratch folder, removed afterwards
  bool isolate = true;              // run each script in a forked child
  std::chrono::seconds timeout{300};  // per script, when isolated
};

// The scripts `inputs` name, in order: each folder contributes its *.wast
// files sorted by name; files are taken as given. Fails if an input does
// not exist or a file is neither .wast nor .json.
core::Result<std::vector<std::filesystem::path>> ListScripts(const std::vector<std::string>& inputs);

// Runs every script, calling `on_file` with each one's report as it
// finishes. A script that cannot be converted or read counts as one failed
// command, with the reason in its report's error. Fails before running
// anything if an input is missing or wast2json is needed but not installed.
core::Result<Totals> RunSuite(const SuiteOptions& options, const std::function<void(const FileReport&)>& on_file);

}  // namespace ampoule::spectest
