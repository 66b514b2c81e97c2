// volent egress test --config volent.yaml --capability CAP [--method M] URL
//
// Sends one request through the node's real egress gate, with the node's
// allowlist, and prints the gate's decision: how an operator checks an
// allowlist entry before agents depend on it (docs/egress.md, docs/cli.md).
//
// stdout: "allow: ADDRESS (HTTP STATUS)" | "deny: REASON" |
//         "allow, but not answered: REASON" (the rules allowed it; the
//         connection or the answer failed).
// Exit: 0 allowed and answered, 1 denied, 3 allowed but not answered,
//       2 usage error or an invalid configuration.
#include <cstdio>
#include <optional>
#include <string>

#include "egress/gate.h"
#include "volent/commands.h"
#include "volent/config_file.h"

namespace volent::cli {
namespace {

constexpr char kUsage[] =
    "usage: volent egress test --config volent.yaml --capability CAP [--method M] URL\n"
    "\n"
    "Sends one request to URL through the egress gate, under CAP, with the\n"
    "configuration's allowlist, and prints the decision:\n"
    "  allow: ADDRESS (HTTP STATUS)        exit 0\n"
    "  deny: REASON                        exit 1\n"
    "  allow, but not answered: REASON     exit 3\n"
    "Exit 2 on a usage error or an invalid configuration. The method defaults to GET.\n";

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
  std::string config_path, capability, method = "GET", url;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::string* target = a == "--config" ? &config_path
                          : a == "--capability" ? &capability
                          : a == "--method" ? &method
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

  std::optional<manifest::NodeConfig> config = LoadConfigFile(config_path, "volent egress");
  if (!config) return 2;
  egress::Gate gate(config->egress);
  egress::HttpRequest request;
  request.method = method;
  request.url = url;
  request.headers = {{"User-Agent", "volent-egress-test"}};
  egress::SendResult sent = gate.Send(capability, request);
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
