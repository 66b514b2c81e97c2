// `volent tool sign|add|list|show|remove`: the node's store of signed tools
// (docs/tools.md). The store and the signature checks are the library's
// (volent/tools/); this file parses arguments and prints.
//
// Exit status: 0 done; 1 the tool or its signature was refused, or the store
// does not hold it; 2 usage error, or a file or configuration that cannot be
// read.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/key_file.h"
#include "core/file_read.h"
#include "core/file_write.h"
#include "core/sha256.h"
#include "volent/cli/commands.h"
#include "volent/cli/config_file.h"
#include "volent/tools/tool_store.h"

namespace volent::cli {
namespace {

constexpr char kToolUsage[] =
    "usage: volent tool sign FILE --key KEY [--kind wasm|python|js] [-o SIG]\n"
    "       volent tool add FILE --sig SIG --config volent.yaml [--data-dir DIR]\n"
    "       volent tool list --config volent.yaml [--data-dir DIR] [--json]\n"
    "       volent tool show sha256:HEX --config volent.yaml [--data-dir DIR]\n"
    "       volent tool remove sha256:HEX --config volent.yaml [--data-dir DIR]\n"
    "\n"
    "sign    for tool authors: signs FILE with the secret key KEY (an `ampoule keygen` key\n"
    "        file) as a tool of that kind (default: from FILE's extension, .wasm .py .js);\n"
    "        writes the signature to SIG (default: standard output)\n"
    "add     checks FILE's signature SIG against the node's trusted tool keys (volent.yaml\n"
    "        tool_keys) and that it names FILE's SHA-256, then stores both under the digest\n"
    "list    every stored tool, each checked again (digest, signature)\n"
    "show    one stored tool, checked again, as JSON\n"
    "remove  deletes a stored tool\n"
    "\n"
    "The store is DATA_DIR/tools; DATA_DIR is volent.yaml's data_dir unless --data-dir says.\n"
    "Change it while the node is stopped.\n"
    "\n"
    "Exit status: 0 done; 1 refused (bad or untrusted signature, changed file) or not in the\n"
    "store; 2 usage error or unreadable file.\n";

struct Options {
  std::string action;
  std::string operand;  // FILE or digest
  std::string key, kind, out, sig, config, data_dir;
  bool json = false;
};

int Usage(const std::string& problem) {
  std::fprintf(stderr, "volent tool: %s\n\n%s", problem.c_str(), kToolUsage);
  return 2;
}

int ParseArgs(const Args& args, Options& o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kToolUsage, stdout);
      return 0;
    }
    if (a == "--json") {
      o.json = true;
      continue;
    }
    std::string* value = a == "--key"        ? &o.key
                         : a == "--kind"     ? &o.kind
                         : a == "-o"         ? &o.out
                         : a == "--sig"      ? &o.sig
                         : a == "--config"   ? &o.config
                         : a == "--data-dir" ? &o.data_dir
                                             : nullptr;
    if (value) {
      if (i + 1 >= args.size()) return Usage(a + " needs a value");
      *value = args[++i];
      continue;
    }
    if (!a.empty() && a[0] == '-') return Usage("unknown option '" + a + "'");
    if (o.action.empty()) {
      o.action = a;
    } else if (o.operand.empty()) {
      o.operand = a;
    } else {
      return Usage("unexpected argument '" + a + "'");
    }
  }
  if (o.action.empty()) return Usage("an action is required: sign, add, list, show or remove");
  if (o.action != "sign" && o.action != "add" && o.action != "list" && o.action != "show" &&
      o.action != "remove") {
    return Usage("unknown action '" + o.action + "'");
  }
  const bool needs_operand = o.action != "list";
  if (needs_operand && o.operand.empty()) {
    return Usage(o.action == "sign" || o.action == "add" ? "FILE is required" : "sha256:HEX is required");
  }
  if (!needs_operand && !o.operand.empty()) return Usage("unexpected argument '" + o.operand + "'");
  if (o.action == "sign") {
    if (o.key.empty()) return Usage("sign needs --key");
    if (!o.config.empty() || !o.sig.empty() || !o.data_dir.empty() || o.json) {
      return Usage("sign takes FILE, --key, --kind and -o only");
    }
    return -1;
  }
  if (!o.key.empty() || !o.out.empty()) return Usage("--key and -o apply to sign only");
  if (!o.kind.empty()) return Usage("--kind applies to sign only");
  if (o.config.empty()) return Usage(o.action + " needs --config (the node's volent.yaml: its tool keys, its data folder)");
  if ((o.action == "add") != !o.sig.empty()) {
    return Usage(o.action == "add" ? "add needs --sig" : "--sig applies to add only");
  }
  if (o.json && o.action != "list") return Usage("--json applies to list only (show prints JSON)");
  return -1;
}

std::optional<std::string> ReadUserFile(const std::string& path, size_t cap) {
  auto bytes = core::ReadFileCapped(path, cap);
  if (!bytes) {
    std::fprintf(stderr, "volent tool: %s\n", bytes.message().c_str());
    return std::nullopt;
  }
  return std::move(*bytes);
}

int Sign(const Options& o) {
  auto tool = ReadUserFile(o.operand, tools::kMaxToolBytes);
  if (!tool) return 2;
  auto key = ampoule::receipt::ReadSecretKeyFile(o.key);
  if (!key) {
    std::fprintf(stderr, "volent tool: %s\n", key.message().c_str());
    return 2;
  }
  const std::filesystem::path path(o.operand);
  const std::string name = path.filename().string();
  std::string kind = o.kind;
  if (kind.empty()) {
    const std::string ext = path.extension().string();
    kind = ext == ".wasm" ? "wasm" : ext == ".py" ? "python" : ext == ".js" || ext == ".mjs" ? "js" : "";
    if (kind.empty()) return Usage("cannot tell the tool's kind from '" + name + "': give --kind wasm, python or js");
  }
  auto signature = tools::SignTool(*tool, kind, name, *key);
  if (!signature) {
    std::fprintf(stderr, "volent tool: %s: %s\n", o.operand.c_str(), signature.message().c_str());
    return 1;
  }
  if (o.out.empty()) {
    std::fputs(signature->c_str(), stdout);
    return 0;
  }
  // Durable, and never over an existing file.
  const core::Status written =
      core::WriteFileAtomically(o.out, *signature, core::WriteOptions{.create_only = true});
  if (!written.ok()) {
    std::fprintf(stderr, "volent tool: %s%s\n", written.message().c_str(),
                 written.kind() == core::ErrorKind::kConflict ? " (it must not exist yet)" : "");
    return 2;
  }
  std::fprintf(stderr, "volent tool: signed sha256:%s (%s) with key %s into %s\n",
               core::Sha256Hex(*tool).c_str(), kind.c_str(),
               key->public_key().KeyId().substr(0, 16).c_str(), o.out.c_str());
  return 0;
}

int Store(const Options& o) {
  auto config = LoadConfigFile(o.config, "volent tool");
  if (!config) return 2;
  auto trusted = tools::TrustedToolKeys(config->tool_keys);
  if (!trusted) {
    std::fprintf(stderr, "volent tool: %s: %s\n", o.config.c_str(), trusted.message().c_str());
    return 2;
  }
  tools::ToolStore store(o.data_dir.empty() ? config->data_dir : o.data_dir);

  if (o.action == "add") {
    auto tool = ReadUserFile(o.operand, tools::kMaxToolBytes);
    auto signature = ReadUserFile(o.sig, ampoule::receipt::kMaxEnvelopeBytes);
    if (!tool || !signature) return 2;
    auto info = store.Add(*tool, *signature, *trusted);
    if (!info) {
      std::fprintf(stderr, "volent tool: refused %s: %s\n", o.operand.c_str(), info.message().c_str());
      return 1;
    }
    std::printf("added sha256:%s (%s, %llu bytes, signed by %s)\n", info->digest.c_str(), info->kind.c_str(),
                static_cast<unsigned long long>(info->bytes),
                tools::SignerName(*info, config->tool_keys, *trusted).c_str());
    return 0;
  }
  if (o.action == "list") {
    auto listed = store.List(*trusted);
    if (!listed) {
      std::fprintf(stderr, "volent tool: %s\n", listed.message().c_str());
      return 1;
    }
    nlohmann::json all = nlohmann::json::array();
    for (const auto& t : *listed) {
      if (o.json) {
        all.push_back(tools::ListedToolJson(t, config->tool_keys, *trusted));
      } else if (t.check) {
        std::printf("sha256:%s  %-6s %10llu bytes  %s  (signed by %s)\n", t.digest.c_str(), t.check->kind.c_str(),
                    static_cast<unsigned long long>(t.check->bytes), t.check->name.c_str(),
                    tools::SignerName(*t.check, config->tool_keys, *trusted).c_str());
      } else {
        std::printf("sha256:%s  REFUSED: %s\n", t.digest.c_str(), t.check.message().c_str());
      }
    }
    if (o.json) std::printf("%s\n", all.dump(2).c_str());
    if (!o.json && listed->empty()) std::printf("no tools in %s\n", store.folder().c_str());
    return 0;
  }
  auto digest = tools::ParseToolDigest(o.operand);
  if (!digest) return Usage(digest.message());
  if (o.action == "remove") {
    auto removed = store.Remove(*digest);
    if (!removed.ok()) {
      std::fprintf(stderr, "volent tool: %s\n", removed.message().c_str());
      return 1;
    }
    std::printf("removed sha256:%s\n", digest->c_str());
    return 0;
  }
  auto loaded = store.Load(*digest, *trusted);
  if (!loaded) {
    std::fprintf(stderr, "volent tool: %s\n", loaded.message().c_str());
    return 1;
  }
  std::printf("%s\n", tools::ToolInfoJson(loaded->info, config->tool_keys, *trusted).dump(2).c_str());
  return 0;
}

}  // namespace

int ToolCommand(const Args& args) {
  Options options;
  if (int code = ParseArgs(args, options); code >= 0) return code;
  return options.action == "sign" ? Sign(options) : Store(options);
}

}  // namespace volent::cli
