// What the demos share: a fresh working folder with the example files and
// the kernel, commands run and printed as a person would type them, each
// outcome checked against what the story expects, and a summary.
//
// Everything printed comes from the real commands (their output, indented)
// or from files in the working folder; the story only adds headings and the
// "as expected" checks. The working folder is kept for inspection.
//
// Not thread-safe: one story at a time, printing to one stream.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/demo/spawn.h"
#include "core/result.h"

namespace ampoule::demo {

struct DemoOptions {
  std::string dir;     // --dir: must not exist or be empty; "" = a new temporary folder
  std::string kernel;  // --kernel: "" = the default kernel (docs/kernel.md)
};

class Story {
 public:
  // Makes the working folder (DIR, else ${TMPDIR:-/tmp}/ampoule-demo-NAME.XXXXXX),
  // writes the embedded examples/NAME/* files into it and links the kernel
  // there as ampoule.kernel. Prints where.
  static core::Result<Story> Begin(std::string_view name, const DemoOptions& options, FILE* out);

  const std::string& dir() const { return dir_; }
  const std::string& kernel_sha256() const { return kernel_sha256_; }
  // The kernel as commands name it, inside the working folder.
  static constexpr const char* kKernelName = "ampoule.kernel";

  void Heading(std::string_view text);
  void Say(std::string_view text);
  // Prints `text` with every line indented, as command output is.
  void ShowIndented(std::string_view text);

  // Files in the working folder (names relative to it).
  core::Status WriteFile(const std::string& name, std::string_view bytes);
  core::Result<std::string> ReadFile(const std::string& name) const;
  // Prints "NAME:" and the file's contents, indented.
  void ShowFile(const std::string& name);

  // Prints "$ ampoule ARGS...", runs it in the working folder and prints its
  // output (its stderr, then its stdout), indented, unless `quiet`.
  core::Result<Captured> Run(const std::vector<std::string>& args, bool quiet = false);

  // Checks a command's outcome: exit code `exit_code` and, when `last_line`
  // is not empty, a last stdout line that is `last_line` or starts with
  // `last_line` followed by ':'. Prints the verdict and records it under
  // `label` for the summary. Returns whether it held.
  bool Expect(const std::string& label, const core::Result<Captured>& run, int exit_code,
              std::string_view last_line = "");
  // Records a check made by the story itself (`got` describes what was found).
  bool Check(const std::string& label, bool ok, const std::string& expected,
             const std::string& got);

  // Prints the summary; returns the demo's exit code: 0 when every check
  // held, else 1.
  int Finish(std::string_view name);

 private:
  struct Outcome {
    std::string label;
    std::string expected;
    std::string got;
    bool ok;
  };

  Story(FILE* out, std::string dir) : out_(out), dir_(std::move(dir)) {}

  FILE* out_;
  std::string dir_;
  std::string kernel_sha256_;
  std::vector<Outcome> outcomes_;
};

// The last non-empty line of `text`, without its line break.
std::string LastLine(std::string_view text);

}  // namespace ampoule::demo
