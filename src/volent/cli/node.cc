// volent node --config volent.yaml [--listen ADDR:PORT] [--data-dir DIR]
//
// Loads the configuration, opens the agent store in the data folder
// (re-checking every stored manifest against this configuration) and the
// journal, resumes every unfinished run, and serves the control API until
// SIGINT/SIGTERM. docs/cli.md, docs/control-api.md, docs/agent-runs.md.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "volent/agent/delays.h"
#include "volent/agent/denial_journal.h"
#include "volent/agent/model_step.h"
#include "volent/agent/run_manager.h"
#include "volent/agent/tool_call.h"
#include "volent/control/api.h"
#include "volent/control/http_server.h"
#include "volent/control/metrics.h"
#include "volent/egress/gate.h"
#include "core/crash_point.h"
#include "core/http/descriptor_limit.h"
#include "volent/journal/journal.h"
#include "volent/manifest/address.h"
#include "volent/manifest/manifest.h"
#include "volent/model/client.h"
#include "volent/model/keys.h"
#include "volent/node/agent_store.h"
#include "volent/cli/commands.h"
#include "volent/cli/config_file.h"

namespace volent::cli {
namespace {

constexpr char kUsage[] =
    "usage: volent node --config volent.yaml [--listen ADDR:PORT] [--data-dir DIR]\n"
    "\n"
    "  --config FILE      the node configuration (required)\n"
    "  --listen ADDR:PORT where the control API listens (overrides the configuration;\n"
    "                     port 0 picks a free port)\n"
    "  --data-dir DIR     the data folder (overrides the configuration)\n";

struct Options {
  std::string config;
  std::string listen;
  std::string data_dir;
};

// 0 to go on, else the exit code.
int ParseArgs(const Args& args, Options& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
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

// Creates `dir` and its parents as needed.
bool MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      std::string part = dir.substr(0, i);
      if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  struct stat st {};
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Model and tool calls in flight each hold a socket (docs/models.md: 1,500 model
// calls at once): the soft open-file limit, often 1,024, is raised to the
// hard one. Below this, the node says so.
constexpr size_t kWantedDescriptors = 4096;

void RaiseDescriptorLimit() {
  const size_t limit = httpd::RaiseDescriptorLimit();
  if (limit != 0 && limit < kWantedDescriptors) {
    std::fprintf(stderr,
                 "volent node: warning: at most %zu open files (RLIMIT_NOFILE); calls in flight each need one: "
                 "raise the hard limit (ulimit -Hn, LimitNOFILE=) to at least %zu\n",
                 limit, kWantedDescriptors);
  }
}

}  // namespace

int NodeCommand(const Args& args) {
  Options options;
  if (int rc = ParseArgs(args, options)) return rc < 0 ? 0 : rc;
  RaiseDescriptorLimit();

  std::optional<manifest::NodeConfig> loaded = LoadConfigFile(options.config, "volent node");
  if (!loaded) return 2;
  manifest::NodeConfig config = std::move(*loaded);

  control::ServerOptions server_options;
  server_options.host = config.listen_host;
  server_options.port = config.listen_port;
  if (!options.listen.empty()) {
    manifest::HostPort listen = manifest::ParseHostPort(options.listen, /*allow_any_port=*/true);
    if (!listen.error.empty()) {
      std::fprintf(stderr, "volent node: --listen '%s' is not ADDR:PORT (e.g. 127.0.0.1:8470)\n",
                   options.listen.c_str());
      return 2;
    }
    server_options.host = listen.host;
    server_options.port = listen.port;
  }
  // The configuration's data_dir is never empty: LoadNodeConfig defaults it
  // to "data" beside the configuration file.
  const std::string data_dir = !options.data_dir.empty() ? options.data_dir : config.data_dir;
  if (!MakeDirs(data_dir)) {
    std::fprintf(stderr, "volent node: cannot create the data folder %s: %s\n", data_dir.c_str(),
                 std::strerror(errno));
    return 2;
  }

  auto recheck = [&](std::string_view name, std::string_view manifest_json) {
    auto again = manifest::LoadAgent(manifest_json, std::string(name), &config);
    if (again.ok()) return true;
    std::fprintf(stderr, "volent node: agent %.*s no longer passes this configuration (status rejected):\n",
                 static_cast<int>(name.size()), name.data());
    for (const auto& p : again.problems) std::fprintf(stderr, "  %s\n", manifest::FormatProblem(p).c_str());
    return false;
  };
  auto store = node::AgentStore::Open(data_dir, recheck);
  if (!store.ok()) {
    std::fprintf(stderr, "volent node: %s\n", store.message().c_str());
    return 2;
  }

  // The model providers' keys are read now, so a missing or unreadable one
  // stops the node at start rather than failing its first run.
  model::LoadedKeys keys = model::LoadModelKeys(config.model_keys);
  for (const auto& warning : keys.warnings) std::fprintf(stderr, "volent node: warning: %s\n", warning.c_str());
  if (!keys.ok()) {
    for (const auto& error : keys.errors) std::fprintf(stderr, "volent node: %s\n", error.c_str());
    return 2;
  }

  journal::OpenOptions journal_options;
  journal_options.before_commit = [] { ampoule::CrashPoint(ampoule::kNodeCrashEnv, "mid-commit"); };
  auto journal = journal::Journal::Open(data_dir, std::move(journal_options));
  if (!journal.ok()) {
    std::fprintf(stderr, "volent node: %s\n", journal.message().c_str());
    return 2;
  }
  egress::GateOptions gate_options;
  gate_options.dns_server = config.egress_dns_server;
  gate_options.max_redirects = config.egress_max_redirects;
  gate_options.on_denial = agent::JournalDenials(**journal);
  // Destroyed in the reverse order: the runs (whose Stop waits for the
  // calls in flight) before the delays, the client and the gate they use.
  egress::Gate gate(config.egress, std::move(gate_options));
  model::Client models(gate, std::move(keys.keys));
  agent::Delays delays;
  auto runs = agent::RunManager::Start(**journal, **store, agent::GateToolPerformer(gate, delays),
                                       agent::ClientModelPerformer(models, delays));
  if (!runs.ok()) {
    std::fprintf(stderr, "volent node: cannot resume the runs in %s: %s\n", (*journal)->path().c_str(),
                 runs.message().c_str());
    return 2;
  }

  control::Metrics metrics;
  control::ApiContext context;
  context.store = store->get();
  context.runs = runs->get();
  context.journal = journal->get();
  context.config = &config;
  context.metrics = &metrics;
  control::ControlApi api(context);
  auto server = control::HttpServer::Bind(api, server_options);
  if (!server.ok()) {
    std::fprintf(stderr, "volent node: %s\n", server.message().c_str());
    return 2;
  }
  // Before saying where it listens: a client may signal as soon as it knows.
  (*server)->CatchSignals();
  std::string host = server_options.host.find(':') != std::string::npos ? "[" + server_options.host + "]"
                                                                          : server_options.host;
  std::fprintf(stderr, "volent node: listening on http://%s:%d\n", host.c_str(), (*server)->port());
  std::fflush(stderr);
  (*server)->Run();
  // Replays under way end and the calls in flight are answered and
  // journaled; unfinished runs resume at the next start.
  (*runs)->Stop();
  std::fprintf(stderr, "volent node: stopped\n");
  return 0;
}

}  // namespace volent::cli
