// volent node --config volent.yaml [--listen ADDR:PORT] [--data-dir DIR] [--lock-down]
//
// Loads the configuration and starts the node (boot/node.h: the agent store,
// the journal, the runs resumed, the control API) and serves until
// SIGINT/SIGTERM. docs/cli.md, docs/control-api.md, docs/agent-runs.md.
#include <signal.h>

#include <cstdio>
#include <string>

#include "volent/boot/lockdown.h"
#include "volent/boot/node.h"
#include "volent/cli/commands.h"
#include "volent/cli/config_file.h"

namespace volent::cli {
namespace {

constexpr char kUsage[] =
    "usage: volent node --config volent.yaml [--listen ADDR:PORT] [--data-dir DIR] [--lock-down]\n"
    "\n"
    "  --config FILE      the node configuration (required)\n"
    "  --listen ADDR:PORT where the control API listens (overrides the configuration;\n"
    "                     port 0 picks a free port)\n"
    "  --data-dir DIR     the data folder (overrides the configuration)\n"
    "  --lock-down        refuse to run as root or with any capability, set no_new_privs and\n"
    "                     load the node's seccomp filter before anything starts (the sealed\n"
    "                     image's PID 1 starts the node so)\n";

struct Options {
  std::string config;
  std::string listen;
  std::string data_dir;
  bool lock_down = false;
};

// 0 to go on, else the exit code.
int ParseArgs(const Args& args, Options& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    }
    if (a == "--lock-down") {
      options.lock_down = true;
      continue;
    }
    std::string* target = a == "--config" ? &options.config
                          : a == "--listen" ? &options.listen
                          : a == "--data-dir" ? &options.data_dir
                                              : nullptr;
    if (!target) {
      std::fprintf(stderr, "volent node: unknown option '%s'\n\n%s", a.c_str(), kUsage);
      return 2;
    }
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "volent node: %s needs a value\n\n%s", a.c_str(), kUsage);
      return 2;
    }
    *target = args[++i];
  }
  if (options.config.empty()) {
    std::fprintf(stderr, "volent node: --config is required\n\n%s", kUsage);
    return 2;
  }
  return 0;
}

}  // namespace

int NodeCommand(const Args& args) {
  // SIGINT and SIGTERM are held from here until the node catches them: a stop
  // asked for while the node starts (the sealed image's PID 1 may ask at any
  // time) waits for the start and is then a graceful stop, never the default
  // action's kill. The threads the start makes inherit the mask, so only this
  // thread takes the signal once it is unblocked.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
  Options options;
  if (int rc = ParseArgs(args, options)) return rc < 0 ? 0 : rc;
  if (options.lock_down) {
    // Before the configuration is read and before any thread starts.
    auto locked = boot::LockDownNode();
    if (!locked.ok()) {
      std::fprintf(stderr, "volent node: %s\n", locked.message().c_str());
      return 2;
    }
    std::fprintf(stderr, "volent node: %s\n", locked->c_str());
  }
  std::optional<manifest::NodeConfig> config = LoadConfigFile(options.config, "volent node");
  if (!config) return 2;

  boot::NodeOptions node_options;
  node_options.listen = options.listen;
  node_options.data_dir = options.data_dir;
  node_options.warn = [](const std::string& text) { std::fprintf(stderr, "volent node: warning: %s\n", text.c_str()); };
  node_options.notice = [](const std::string& text) { std::fprintf(stderr, "volent node: %s\n", text.c_str()); };
  auto node = boot::Node::Start(std::move(*config), node_options);
  if (!node) {
    std::fprintf(stderr, "volent node: %s\n", node.message().c_str());
    return 2;
  }
  // Before saying where it listens: a client may signal as soon as it knows.
  (*node)->CatchSignals();
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  std::fprintf(stderr, "volent node: listening on %s\n", (*node)->url().c_str());
  std::fflush(stderr);
  (*node)->Run();
  std::fprintf(stderr, "volent node: stopped\n");
  return 0;
}

}  // namespace volent::cli
