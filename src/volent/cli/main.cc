// `volent`: the agent node and its offline tools. docs/cli.md.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "volent/cli/commands.h"

namespace {

constexpr char kUsage[] =
    "usage: volent <command> [options]\n"
    "\n"
    "commands:\n"
    "  check [--config volent.yaml] FILE...   check agent manifests (and a node configuration)\n"
    "  node --config volent.yaml [--listen ADDR:PORT] [--data-dir DIR]\n"
    "                                         run the node and its control API\n"
    "  journal digest --data-dir DIR [--json]  the journal's digest (entries, head hash)\n"
    "  journal verify --data-dir DIR [--expect sha256:HEX]\n"
    "                                         check the journal's hash chain\n"
    "  egress test --config volent.yaml --capability CAP [--method M] URL\n"
    "                                         one request through the egress gate: allow or deny\n"
    "  tool sign|add|list|show|remove ...     the node's store of signed tools\n"
    "  approve --node URL ID [--deny] [--reason TEXT] [--key FILE] [--token-file FILE]\n"
    "                                         decide a pending approval, signed with your own key\n"
    "  approve --verify --data-dir DIR ID [--key FILE.pub]\n"
    "                                         check a signed approval off the node: VERIFIED or FAILED\n"
    "  credential create --data-dir DIR --name NAME --role ROLE... [--ttl-days N] -o FILE\n"
    "                                         a token made in a data folder before its node runs\n"
    "  attest --nonce HEX [--config volent.yaml] [-o FILE]\n"
    "                                         the node's signed attestation report\n"
    "  attest --verify POLICY REPORT [--nonce HEX]\n"
    "                                         check a report against a policy: VERIFIED or FAILED\n"
    "  mock-model [--listen HOST:PORT] [--latency-ms N] [--jitter-ms N] [--api-key KEY]\n"
    "             [--script FILE] [--max-connections N]\n"
    "                                         a mock model server (Anthropic and OpenAI APIs)\n"
    "\n"
    "Run `volent <command> --help` for a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  // tpm2-tss logs its own errors to stderr; the node and `volent attest`
  // report them in their own words (src/volent/attest/tpm.h). Set before any
  // thread starts (setenv is not thread-safe); a user's TSS2_LOG wins.
  setenv("TSS2_LOG", "all+none", /*overwrite=*/0);
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  volent::cli::Args args(argv + 2, argv + argc);
  if (command == "check") return volent::cli::CheckCommand(args);
  if (command == "node") return volent::cli::NodeCommand(args);
  if (command == "journal") return volent::cli::JournalCommand(args);
  if (command == "egress") return volent::cli::EgressCommand(args);
  if (command == "tool") return volent::cli::ToolCommand(args);
  if (command == "attest") return volent::cli::AttestCommand(args);
  if (command == "approve") return volent::cli::ApproveCommand(args);
  if (command == "credential") return volent::cli::CredentialCommand(args);
  if (command == "mock-model") return volent::cli::MockModelCommand(args);
  std::fprintf(stderr, "volent: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
