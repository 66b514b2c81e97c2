// ampoule demo refund|grader: the runnable demos (docs/demo.md). The front
// end only: options, then the story in src/ampoule/demo.
#include <cstdio>
#include <string>
#include <string_view>

#include "ampoule/cli/commands.h"
#include "ampoule/demo/demos.h"

namespace ampoule::cli {
namespace {

constexpr const char* kDemoHelp =
    "usage: ampoule demo refund|grader [--dir DIR] [--kernel K]\n"
    "\n"
    "Runs a demo end to end with the real commands, printing each command, its\n"
    "output and whether the outcome was the expected one (docs/demo.md):\n"
    "  refund  an agent's refund through the trust gate: sent; refused when the\n"
    "          output is altered; held when the amount differs; a duplicate is\n"
    "          escalated and goes out once; the code checked on a held-out export\n"
    "  grader  an RL grader's score replayed by the lab; the receipt caught when\n"
    "          presented for another episode\n"
    "\n"
    "options:\n"
    "  --dir DIR     the working folder: new or empty (default: a new folder\n"
    "                ${TMPDIR:-/tmp}/ampoule-demo-NAME.XXXXXX); kept afterwards\n"
    "  --kernel K    the kernel file (default: 'ampoule kernel path')\n"
    "  -h, --help    show this help\n"
    "\n"
    "exit status: 0 every step as expected, 1 a step was not, 2 usage or no kernel\n";

int Demo(const char* name, int (*run)(const demo::DemoOptions&, FILE*), Args args) {
  demo::DemoOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "-h" || a == "--help") {
      fputs(kDemoHelp, stdout);
      return 0;
    }
    if ((a == "--dir" || a == "--kernel") && i + 1 < args.size()) {
      (a == "--dir" ? options.dir : options.kernel) = args[++i];
      continue;
    }
    fprintf(stderr, "ampoule demo %s: unexpected argument '%s'\n\n%s", name, args[i], kDemoHelp);
    return 2;
  }
  // Line by line, so the story shows as it goes even through a pipe.
  setvbuf(stdout, nullptr, _IOLBF, 0);
  return run(options, stdout);
}

}  // namespace

int DemoRefundCommand(Args args) { return Demo("refund", demo::RunRefundDemo, args); }
int DemoGraderCommand(Args args) { return Demo("grader", demo::RunGraderDemo, args); }

}  // namespace ampoule::cli
