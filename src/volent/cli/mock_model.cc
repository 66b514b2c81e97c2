// volent mock-model [--listen HOST:PORT] [--latency-ms N] [--jitter-ms N]
//                   [--api-key KEY] [--script FILE] [--max-connections N]
//                   [--record N]
//
// A mock language-model server for tests and benchmarks: speaks the
// Anthropic Messages API and OpenAI Chat Completions, answers from a
// deterministic plan (or a script), holds each answer for the given latency
// on timers, counts what it saw (GET /stats) and, with --record, keeps the
// requests themselves (GET /requests). Serves until
// SIGINT/SIGTERM. docs/mock-model.md, docs/cli.md.
#include <charconv>
#include <cstdio>
#include <chrono>
#include <optional>
#include <string>

#include "core/file_read.h"
#include "core/host_port.h"
#include "core/http/descriptor_limit.h"
#include "volent/cli/commands.h"
#include "volent/mockmodel/plan.h"
#include "volent/mockmodel/server.h"
#include "volent/mockmodel/service.h"

namespace volent::cli {
namespace {

constexpr char kUsage[] =
    "usage: volent mock-model [--listen HOST:PORT] [--latency-ms N] [--jitter-ms N]\n"
    "                         [--api-key KEY] [--script FILE] [--max-connections N]\n"
    "                         [--record N]\n"
    "\n"
    "  --listen HOST:PORT     where to listen (default 127.0.0.1:8480; port 0 picks a free port)\n"
    "  --latency-ms N         hold every answer N ms (default 0)\n"
    "  --jitter-ms N          plus 0..N ms more, the same for the same request number\n"
    "  --api-key KEY          accept only this key (default: any key, but one is needed)\n"
    "  --script FILE          answers to give in turn, a JSON array (docs/mock-model.md)\n"
    "  --max-connections N    connections at once (default 10000)\n"
    "  --record N             keep the first N model requests whole, for GET /requests (0 to 1000;\n"
    "                         default 0: none kept)\n"
    "\n"
    "Serves POST /v1/messages (Anthropic), POST /v1/chat/completions (OpenAI),\n"
    "GET /stats, GET /requests and GET /healthz until SIGINT or SIGTERM.\n";

constexpr long kMaxMillis = 600000;  // ten minutes
// A script is JSON written for a test; 16 MiB leaves room for long answers.
constexpr size_t kMaxScriptBytes = size_t{16} << 20;

struct Options {
  std::string listen = "127.0.0.1:8480";
  long latency_ms = 0;
  long jitter_ms = 0;
  std::optional<std::string> api_key;
  std::string script;
  long max_connections = 10000;
  long record = 0;
};

bool ParseNumber(const std::string& text, long low, long high, long& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= low && out <= high;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "volent mock-model: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

// 0 to go on, -1 to exit 0 (help), else the exit code.
int ParseArgs(const Args& args, Options& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    }
    bool known = a == "--listen" || a == "--latency-ms" || a == "--jitter-ms" || a == "--api-key" ||
                 a == "--script" || a == "--max-connections" || a == "--record";
    if (!known) return UsageError("unknown option '" + a + "'");
    if (i + 1 >= args.size()) return UsageError(a + " needs a value");
    const std::string& value = args[++i];
    if (a == "--listen") {
      options.listen = value;
    } else if (a == "--api-key") {
      if (value.empty()) return UsageError("--api-key needs a non-empty key");
      options.api_key = value;
    } else if (a == "--script") {
      options.script = value;
    } else if (a == "--max-connections") {
      if (!ParseNumber(value, 1, 1000000, options.max_connections)) {
        return UsageError("--max-connections '" + value + "' is not a number from 1 to 1000000");
      }
    } else if (a == "--record") {
      if (!ParseNumber(value, 0, long(mockmodel::kMaxRecordedRequests), options.record)) {
        return UsageError("--record '" + value + "' is not a number of requests from 0 to " +
                          std::to_string(mockmodel::kMaxRecordedRequests));
      }
    } else {
      long& target = a == "--latency-ms" ? options.latency_ms : options.jitter_ms;
      if (!ParseNumber(value, 0, kMaxMillis, target)) {
        return UsageError(a + " '" + value + "' is not a number of milliseconds from 0 to " +
                          std::to_string(kMaxMillis));
      }
    }
  }
  return 0;
}

}  // namespace

int MockModelCommand(const Args& args) {
  Options options;
  if (int rc = ParseArgs(args, options)) return rc < 0 ? 0 : rc;

  auto listen = core::ParseHostPort(options.listen, core::PortRule::kRequiredOrAny);
  if (!listen) return UsageError("--listen '" + options.listen + "' " + listen.message() + " (e.g. 127.0.0.1:8480)");

  mockmodel::ServiceOptions service_options;
  service_options.api_key = options.api_key;
  service_options.latency = std::chrono::milliseconds(options.latency_ms);
  service_options.jitter = std::chrono::milliseconds(options.jitter_ms);
  service_options.record = static_cast<size_t>(options.record);
  if (!options.script.empty()) {
    // Through the one capped reader (core/file_read.h), as every file a
    // volent command is named: a FIFO or device is what that reader says.
    core::Result<std::string> text = core::ReadFileCapped(options.script, kMaxScriptBytes);
    if (!text.ok()) {
      std::fprintf(stderr, "volent mock-model: cannot read the script: %s\n", text.message().c_str());
      return 2;
    }
    auto script = mockmodel::ParseScript(*text);
    if (!script.ok()) {
      std::fprintf(stderr, "volent mock-model: %s: %s\n", options.script.c_str(), script.message().c_str());
      return 2;
    }
    service_options.script = std::move(*script);
  }
  mockmodel::Service service(std::move(service_options));

  mockmodel::ServerOptions server_options;
  server_options.host = listen->host;
  server_options.port = listen->port;
  server_options.max_connections = static_cast<size_t>(options.max_connections);
  server_options.stop_grace = std::chrono::milliseconds(options.latency_ms + options.jitter_ms + 5000);
  size_t descriptors = core::httpd::RaiseDescriptorLimit();
  if (descriptors != 0 && descriptors < server_options.max_connections + 16) {
    std::fprintf(stderr,
                 "volent mock-model: note: the open-file limit is %zu, so fewer than %zu connections fit at once "
                 "(raise it with ulimit -n)\n",
                 descriptors, server_options.max_connections);
  }
  auto server = mockmodel::Server::Bind(service, server_options);
  if (!server.ok()) {
    std::fprintf(stderr, "volent mock-model: %s\n", server.message().c_str());
    return 2;
  }
  // Before saying where it listens: a client may signal as soon as it knows.
  (*server)->CatchSignals();
  std::fprintf(stderr, "volent mock-model: listening on http://%s\n",
               core::FormatHostPort(listen->host, (*server)->port()).c_str());
  std::fflush(stderr);
  (*server)->Run();
  std::fprintf(stderr, "volent mock-model: stopped after %llu model requests\n",
               static_cast<unsigned long long>(service.Stats()["requests"].get<uint64_t>()));
  return 0;
}

}  // namespace volent::cli
