// ampoule wasm spectest: runs the WebAssembly core spec test scripts against
// the engine and prints one line per script and a total.
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "ampoule/cli/commands.h"
#include "ampoule/spectest/suite.h"

namespace ampoule::cli {
namespace {

constexpr const char* kHelp =
    "usage: ampoule wasm spectest [options] DIR|FILE.wast|FILE.json...\n"
    "\n"
    "Converts each .wast script with wast2json (wabt), replays its commands against the\n"
    "engine and prints '<file>: N passed, N failed, N skipped' per script, then the total.\n"
    "A folder stands for the .wast files in it. Exit status: 0 if nothing failed, 1 if\n"
    "something failed, 2 for a usage or setup error.\n"
    "\n"
    "options:\n"
    "  --cache DIR        keep conversions in DIR, keyed by each script's content\n"
    "  -v, --verbose      print each failure (file:line, expected vs got), each note\n"
    "                     on a passing command, and why commands were skipped\n"
    "  --timeout SECONDS  stop a script that runs longer (default 300)\n"
    "  --no-fork          run scripts in this process (for a debugger; a crash ends the run)\n";

struct Options {
  spectest::SuiteOptions suite;
  bool verbose = false;
};

int Usage(const std::string& message) {
  fprintf(stderr, "ampoule wasm spectest: %s\n\n%s", message.c_str(), kHelp);
  return 2;
}

// Returns -1 to go on, or the exit status to return now.
int ParseArgs(Args args, Options& o) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    auto next = [&]() -> const char* { return i + 1 < args.size() ? args[++i] : nullptr; };
    if (a == "-h" || a == "--help") {
      fputs(kHelp, stdout);
      return 0;
    } else if (a == "-v" || a == "--verbose") {
      o.verbose = true;
    } else if (a == "--no-fork") {
      o.suite.isolate = false;
    } else if (a == "--cache") {
      const char* dir = next();
      if (!dir) return Usage("--cache needs a folder");
      o.suite.cache_dir = dir;
    } else if (a == "--timeout") {
      const char* s = next();
      unsigned seconds = 0;
      auto r = s ? std::from_chars(s, s + strlen(s), seconds) : std::from_chars_result{};
      if (!s || r.ec != std::errc() || *r.ptr != '\0' || seconds == 0) {
        return Usage("--timeout needs a whole number of seconds");
      }
      o.suite.timeout = std::chrono::seconds(seconds);
    } else if (a.starts_with("-") && a != "-") {
      return Usage("unknown option '" + std::string(a) + "'");
    } else {
      o.suite.inputs.emplace_back(a);
    }
  }
  if (o.suite.inputs.empty()) return Usage("give a folder of .wast scripts, or scripts");
  return -1;
}

void PrintReport(const spectest::FileReport& r, bool verbose) {
  if (verbose) {
    for (const spectest::Verdict& v : r.failures) puts(spectest::FormatVerdictLine(r.name, v).c_str());
    for (const spectest::Verdict& v : r.notes) {
      printf("%s\n", spectest::FormatVerdictLine(r.name, v).insert(2, "note: ").c_str());
    }
    for (const auto& [reason, count] : r.skip_reasons) {
      printf("  %s: %llu skipped: %s\n", r.name.c_str(), static_cast<unsigned long long>(count),
             reason.c_str());
    }
  }
  puts(spectest::FormatFileLine(r).c_str());
  fflush(stdout);
}

}  // namespace

int WasmSpectestCommand(Args args) {
  Options o;
  if (int status = ParseArgs(args, o); status >= 0) return status;
  core::Result<spectest::Totals> totals =
      spectest::RunSuite(o.suite, [&](const spectest::FileReport& r) { PrintReport(r, o.verbose); });
  if (!totals) {
    fprintf(stderr, "ampoule wasm spectest: %s\n", totals.message().c_str());
    return 2;
  }
  puts(spectest::FormatTotals(*totals).c_str());
  return totals->failed == 0 ? 0 : 1;
}

}  // namespace ampoule::cli
