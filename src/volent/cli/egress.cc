// volent egress test --config volent.yaml --capability CAP [--method M]
//                    [--max-redirects N] URL
//
// Sends one request through the node's real egress gate, with the node's
// allowlist, DNS server and redirect limit, and prints the gate's decision:
// how an operator checks an allowlist entry before agents depend on it
// (docs/egress.md, docs/cli.md).
//
// stdout: one "redirect: URL" line per redirect followed (each judged like
//         a new request; the last may be the one refused), then
//         "allow: ADDRESS (HTTP STATUS)" | "deny: REASON" |
//         "allow, but not answered: REASON" (the rules allowed it; the
//         connection or the answer failed, or the redirect limit was hit).
// Exit: 0 allowed and answered, 1 denied, 3 allowed but not answered,
//       2 usage error or an invalid configuration.
#include <cstdio>
#include <optional>
#include <string>

#include "volent/egress/credentials.h"
#include "volent/egress/gate.h"
#include "volent/egress/resolve.h"
#include "volent/cli/commands.h"
#include "volent/cli/config_file.h"

namespace volent::cli {
namespace {

constexpr char kUsage[] =
    "usage: volent egress test --config volent.yaml --capability CAP [--method M]\n"
    "                          [--max-redirects N] URL\n"
    "\n"
    "Sends one request to URL through the egress gate, under CAP, with the\n"
    "configuration's allowlist, DNS server and redirect limit, and prints each\n"
    "redirect followed (\"redirect: URL\", each judged like a new request), then\n"
    "the decision:\n"
    "  allow: ADDRESS (HTTP STATUS)        exit 0\n"
    "  deny: REASON                        exit 1\n"
    "  allow, but not answered: REASON     exit 3\n"
    "Exit 2 on a usage error or an invalid configuration. The method defaults to GET;\n"
    "--max-redirects (0 to 20) overrides egress.max_redirects (0: a redirect is the answer).\n";

int Usage(const char* problem) {
  std::fprintf(stderr, "volent egress: %s\n\n%s", problem, kUsage);
  return 2;
}

}  // namespace

int EgressCommand(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "test") return Usage(("unknown subcommand '" + args[0] + "'").c_str());
  std::string config_path, capability, method = "GET", url, max_redirects;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::string* target = a == "--config" ? &config_path
                          : a == "--capability" ? &capability
                          : a == "--method" ? &method
                          : a == "--max-redirects" ? &max_redirects
                                                   : nullptr;
    if (target) {
      if (i + 1 >= args.size()) return Usage((a + " needs a value").c_str());
      *target = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      return Usage(("unknown option '" + a + "'").c_str());
    } else if (url.empty()) {
      url = a;
    } else {
      return Usage("one URL only");
    }
  }
  if (config_path.empty()) return Usage("--config is required");
  if (capability.empty()) return Usage("--capability is required");
  if (url.empty()) return Usage("a URL is required");
  int redirect_limit = -1;  // the configuration's
  if (!max_redirects.empty()) {
    const bool digits = max_redirects.size() <= 2 && max_redirects.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(max_redirects) > 20) return Usage("--max-redirects must be a number from 0 to 20");
    redirect_limit = std::stoi(max_redirects);
  }

  std::optional<manifest::NodeConfig> config = LoadConfigFile(config_path, "volent egress");
  if (!config) return 2;
  if (std::string problem = egress::CheckDnsServer(config->egress_dns_server); !problem.empty()) {
    std::fprintf(stderr, "volent egress: %s: egress.%s\n", config_path.c_str(), problem.c_str());
    return 2;
  }
  // The node's credentials too, so an entry naming one is tried as the node
  // sends it (the value is written by the gate, never printed).
  auto credentials = egress::LoadCredentials(config->egress_credentials);
  if (!credentials) {
    std::fprintf(stderr, "volent egress: %s: egress.credentials: %s\n", config_path.c_str(),
                 credentials.message().c_str());
    return 2;
  }
  egress::GateOptions options;
  options.credentials = std::move(*credentials);
  options.dns_server = config->egress_dns_server;
  options.max_redirects = config->egress_max_redirects;
  options.io_threads = 1;
  egress::Gate gate(config->egress, options);
  egress::HttpRequest request;
  request.method = method;
  request.url = url;
  request.headers = {{"User-Agent", "volent-egress-test"}};
  request.max_redirects = redirect_limit;
  egress::SendResult sent = gate.Send(capability, request);
  for (const std::string& hop : sent.redirects) std::printf("redirect: %s\n", hop.c_str());
  switch (sent.outcome) {
    case egress::Outcome::kAnswered:
      std::printf("allow: %s (HTTP %d)\n", sent.pinned_address.c_str(), sent.response.status);
      return 0;
    case egress::Outcome::kDenied:
      std::printf("deny: %s\n", sent.reason.c_str());
      return 1;
    case egress::Outcome::kNotSent:
    case egress::Outcome::kFailed:
      break;
  }
  std::printf("allow, but not answered: %s\n", sent.reason.c_str());
  return 3;
}

}  // namespace volent::cli
