// ampoule mcp: the Model Context Protocol server (docs/mcp.md). Parses the
// options, builds the server (src/ampoule/mcp) and serves it on stdio, or on
// Streamable HTTP with --http.
#include <csignal>
#include <cstdio>
#include <string>
#include <string_view>
#include <unistd.h>

#include "ampoule/cli/arg_parse.h"
#include "ampoule/cli/commands.h"
#include "ampoule/mcp/http.h"
#include "ampoule/mcp/server.h"
#include "ampoule/mcp/stdio.h"
#include "core/host_port.h"

namespace ampoule::cli {
namespace {

constexpr const char* kHelp =
    "usage: ampoule mcp --key KEY [options]\n"
    "\n"
    "Serves the Model Context Protocol (revision 2025-11-25) for agents: tools to run\n"
    "Python, JavaScript and WASI programs sealed on the kernel, each result with a\n"
    "receipt signed by KEY (run_python, run_javascript, run_wasm), to verify and replay\n"
    "receipts (verify_receipt), and to submit actions to the trust gate (gate_submit).\n"
    "Without --http it speaks newline-delimited JSON-RPC on stdin and stdout (logs on\n"
    "stderr) until stdin ends. See docs/mcp.md.\n"
    "\n"
    "options:\n"
    "  --key KEY               the signing key for run receipts (required; 'ampoule keygen')\n"
    "  --kernel K              the kernel file (default: 'ampoule kernel path')\n"
    "  --trusted-keys PUB      public keys verify_receipt trusts (repeatable; default:\n"
    "                          KEY's own public key)\n"
    "  --policy GATE_POLICY    the trust gate policy for gate_submit (docs/gate.md);\n"
    "                          without it gate_submit reports it is not configured\n"
    "  --http HOST:PORT        serve Streamable HTTP at http://HOST:PORT/mcp instead of\n"
    "                          stdio (bind to 127.0.0.1 unless something in front\n"
    "                          authenticates)\n"
    "  --allow-origin ORIGIN   with --http: a browser origin allowed besides loopback\n"
    "                          (repeatable)\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 when the input ended (stdio) or on SIGINT/SIGTERM (HTTP); 2 on a\n"
    "usage or configuration error; 1 when the transport failed.\n";

struct Options {
  mcp::ServerOptions server;
  std::string http;
  std::vector<std::string> origins;
  bool help = false;
};

core::Status ParseArgs(Args args, Options& opts) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "-h" || a == "--help") {
      opts.help = true;
      continue;
    }
    if (a != "--key" && a != "--kernel" && a != "--trusted-keys" && a != "--policy" && a != "--http" &&
        a != "--allow-origin") {
      return core::Error{a.size() > 1 && a.front() == '-' ? "unknown option '" + std::string(a) + "'"
                                                     : "unexpected argument '" + std::string(a) + "'"};
    }
    if (i + 1 >= args.size()) return core::Error{std::string(a) + " needs a value"};
    std::string v = args[++i];
    if (a == "--key") opts.server.key_path = v;
    else if (a == "--kernel") opts.server.kernel_path = v;
    else if (a == "--trusted-keys") opts.server.trusted_keys.push_back(v);
    else if (a == "--policy") opts.server.gate_policy = v;
    else if (a == "--http") opts.http = v;
    else opts.origins.push_back(v);
  }
  if (opts.help) return core::Status::Ok();
  if (opts.server.key_path.empty()) {
    return core::Error{"--key KEY is required: run receipts are signed with it (make one with 'ampoule keygen -o KEY')"};
  }
  if (!opts.origins.empty() && opts.http.empty()) return core::Error{"--allow-origin goes with --http"};
  return core::Status::Ok();
}

core::Result<mcp::HttpOptions> ParseHttp(const Options& opts) {
  auto address = core::ParseHostPort(opts.http, core::PortRule::kRequiredOrAny);
  if (!address) {
    return core::Error{"invalid --http '" + opts.http + "': it " + address.message() + " (e.g. 127.0.0.1:8700)",
                 core::ErrorKind::kInvalidArgument};
  }
  mcp::HttpOptions http;
  http.host = address->host;
  http.port = address->port;
  http.allowed_origins = opts.origins;
  return http;
}

}  // namespace

int McpCommand(Args args) {
  Options opts;
  core::Status parsed = ParseArgs(args, opts);
  if (!parsed.ok()) {
    fprintf(stderr, "ampoule mcp: %s\nRun 'ampoule mcp --help' for usage.\n", parsed.message().c_str());
    return 2;
  }
  if (opts.help) {
    fputs(kHelp, stdout);
    return 0;
  }
  mcp::HttpOptions http_options;
  if (!opts.http.empty()) {
    core::Result<mcp::HttpOptions> http = ParseHttp(opts);
    if (!http) {
      fprintf(stderr, "ampoule mcp: %s\n", http.message().c_str());
      return 2;
    }
    http_options = std::move(*http);
  }
  core::Result<std::shared_ptr<mcp::Server>> server = mcp::Server::Create(opts.server);
  if (!server) {
    fprintf(stderr, "ampoule mcp: %s\n", server.message().c_str());
    return 2;
  }
  // A client that goes away must end the server with an error, not a signal.
  signal(SIGPIPE, SIG_IGN);
  core::Status served = core::Status::Ok();
  if (!opts.http.empty()) {
    served = mcp::ServeHttp(*server, http_options);
  } else {
    fprintf(stderr, "ampoule mcp: serving MCP on stdio\n");
    served = mcp::ServeStdio(*server, STDIN_FILENO, STDOUT_FILENO);
  }
  if (!served.ok()) {
    fprintf(stderr, "ampoule mcp: %s\n", served.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace ampoule::cli
