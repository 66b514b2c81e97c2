// The subcommands of `volent` (docs/cli.md). Each takes the arguments after
// its name and returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace volent::cli {

using Args = std::vector<std::string>;

// volent check [--config volent.yaml] FILE...   (src/volent/cli/check.cc)
int CheckCommand(const Args& args);
// volent node --config volent.yaml [--listen ADDR:PORT] [--data-dir DIR]   (src/volent/cli/node.cc)
int NodeCommand(const Args& args);
// volent journal digest|verify --data-dir DIR [--json] [--expect sha256:HEX]   (src/volent/cli/journal.cc)
int JournalCommand(const Args& args);
// volent egress test --config volent.yaml --capability CAP [--method M] URL   (src/volent/cli/egress.cc)
int EgressCommand(const Args& args);
// volent tool sign|add|list|show|remove ...   (src/volent/cli/tool.cc)
int ToolCommand(const Args& args);
// volent approve --node URL ID [--deny] [--reason T] [--key F] [--token-file F]; --verify (approve.cc)
int ApproveCommand(const Args& args);
// volent credential create --data-dir DIR --name N --role R... [--ttl-days N] -o FILE   (credential.cc)
int CredentialCommand(const Args& args);
// `volent attest`: the attestation report, made and verified (attest.cc).
int AttestCommand(const Args& args);
// volent mock-model [--listen HOST:PORT] [--latency-ms N] [--jitter-ms N] [--api-key KEY]
//                   [--script FILE] [--max-connections N]   (src/volent/cli/mock_model.cc)
int MockModelCommand(const Args& args);

}  // namespace volent::cli
