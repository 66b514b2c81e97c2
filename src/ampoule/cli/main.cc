// ampoule: verifiable code execution. Dispatches to subcommands.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "ampoule/cli/commands.h"

namespace {

constexpr const char* kUsage =
    "usage: ampoule <command> [options]\n"
    "\n"
    "commands:\n"
    "  run PROGRAM [options]                         run a .py, .js or .wasm program sealed, on the kernel\n"
    "  wasm run MODULE.wasm [options] [-- ARGS...]   run a WASI command module\n"
    "  wasm spectest DIR|FILE.wast...                run the WebAssembly core spec tests\n"
    "  wasm fuel-table                               print the fuel cost table (Markdown)\n"
    "  keygen -o KEY                                 make a receipt signing key (KEY, KEY.pub)\n"
    "  verify RECEIPT --key PUB [--kernel K] ...     check a receipt (--replay: re-run it)\n"
    "  kernel info|path|pack                         inspect, locate or make a kernel file\n"
    "  gate submit ACTION.json --policy P [options]  check an action's receipt: send, hold, escalate, refuse\n"
    "  gate log --policy P|--db F                    list the trust gate's decisions\n"
    "  demo refund|grader [--dir DIR] [--kernel K]   run a demo end to end, printing each decision\n"
    "  mcp --key KEY [--http HOST:PORT] [options]    serve the tools to agents (Model Context Protocol)\n"
    "\n"
    "Run 'ampoule <command> --help' for a command's options.\n";

// A command is "group name" (ampoule wasm run) or, with a null name, a
// single word (ampoule keygen).
struct Command {
  const char* group;
  const char* name;
  int (*run)(ampoule::cli::Args);
};

constexpr Command kCommands[] = {
    {"run", nullptr, ampoule::cli::RunCommand},
    {"wasm", "run", ampoule::cli::WasmRunCommand},
    {"wasm", "spectest", ampoule::cli::WasmSpectestCommand},
    {"wasm", "fuel-table", ampoule::cli::WasmFuelTableCommand},
    {"keygen", nullptr, ampoule::cli::KeygenCommand},
    {"verify", nullptr, ampoule::cli::VerifyCommand},
    {"kernel", nullptr, ampoule::cli::KernelCommand},
    {"gate", "submit", ampoule::cli::GateSubmitCommand},
    {"gate", "log", ampoule::cli::GateLogCommand},
    {"demo", "refund", ampoule::cli::DemoRefundCommand},
    {"demo", "grader", ampoule::cli::DemoGraderCommand},
    {"mcp", nullptr, ampoule::cli::McpCommand},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (const Command& c : kCommands) {
    if (c.name == nullptr && std::string_view(argv[1]) == c.group) {
      return c.run(ampoule::cli::Args(argv + 2, argc - 2));
    }
    if (c.name != nullptr && argc >= 3 && std::string_view(argv[1]) == c.group &&
        std::string_view(argv[2]) == c.name) {
      return c.run(ampoule::cli::Args(argv + 3, argc - 3));
    }
  }
  fprintf(stderr, "ampoule: unknown command '%s%s%s'\n\n%s", argv[1], argc >= 3 ? " " : "",
          argc >= 3 ? argv[2] : "", kUsage);
  return 2;
}
