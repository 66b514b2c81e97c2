// `volent check [--config volent.yaml] FILE...`: the offline checker of agent
// manifests and node configurations (docs/manifests.md). The same loaders as
// the node; this file only reads files and prints.
//
// Output (stdout): "FILE: ok" for each valid file, one
// "FILE:LINE:COLUMN: POINTER: MESSAGE" line per problem, then a summary.
// Exit: 0 all valid, 1 any invalid, 2 usage error or an unreadable file.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "core/file_read.h"
#include "volent/cli/commands.h"
#include "volent/manifest/manifest.h"
#include "volent/manifest/yaml_reader.h"

namespace volent::cli {
namespace {

namespace manifest = volent::manifest;

constexpr char kCheckUsage[] =
    "usage: volent check [--config volent.yaml] FILE...\n"
    "\n"
    "Checks agent manifests (*.agent.yaml, or JSON) against the manifest schema and the\n"
    "node's rules, offline. A FILE whose kind is NodeConfig is checked as a node\n"
    "configuration. With --config, every capability of a manifest must have an entry\n"
    "in that configuration's egress allowlist.\n"
    "\n"
    "Prints FILE: ok, or one FILE:LINE:COLUMN: POINTER: MESSAGE line per problem.\n"
    "Exit status: 0 all valid, 1 any invalid, 2 usage error or unreadable file.\n";

struct Tally {
  int ok = 0;
  int invalid = 0;
  int unreadable = 0;
};

std::string FolderOf(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

bool Report(const std::string& path, const manifest::Problems& problems, Tally& tally) {
  if (problems.empty()) {
    std::printf("%s: ok\n", path.c_str());
    ++tally.ok;
    return true;
  }
  for (const manifest::Problem& p : problems) std::printf("%s\n", manifest::FormatProblem(p).c_str());
  ++tally.invalid;
  return false;
}

// The file's bytes, or nullopt after counting it: unreadable (why, on
// stderr), or invalid when it is over the size cap (said as its one
// problem, in the words the manifest reader uses for an overlong text).
// Files are read through the one capped reader (core/file_read.h) with
// the manifest reader's cap, kMaxDocumentBytes (1 MiB), so a larger file
// is refused without being read, and what that reader refuses (it decides
// about FIFOs and devices) is refused here too.
std::optional<std::string> ReadFile(const std::string& path, Tally& tally) {
  bool too_large = false;
  core::Result<std::string> text = core::ReadFileCapped(path, manifest::kMaxDocumentBytes, &too_large);
  if (text.ok()) return std::move(*text);
  if (too_large) {
    Report(path, {{path, 1, 1, "", "the document is larger than " + std::to_string(manifest::kMaxDocumentBytes) + " bytes"}},
           tally);
  } else {
    std::fprintf(stderr, "volent check: %s\n", text.message().c_str());
    ++tally.unreadable;
  }
  return std::nullopt;
}

void CheckFile(const std::string& path, const manifest::NodeConfig* config, Tally& tally) {
  std::optional<std::string> text = ReadFile(path, tally);
  if (!text) return;
  if (manifest::DocumentKind(*text) == "NodeConfig") {
    Report(path, manifest::LoadNodeConfig(*text, path, FolderOf(path)).problems, tally);
  } else {
    Report(path, manifest::LoadAgent(*text, path, config).problems, tally);
  }
}

}  // namespace

int CheckCommand(const Args& args) {
  std::optional<std::string> config_path;
  std::vector<std::string> files;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_done || a.empty() || a[0] != '-' || a == "-") {
      files.push_back(a);
    } else if (a == "--") {
      options_done = true;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kCheckUsage, stdout);
      return 0;
    } else if (a == "--config" && i + 1 < args.size()) {
      config_path = args[++i];
    } else if (a.rfind("--config=", 0) == 0) {
      config_path = a.substr(9);
    } else {
      std::fprintf(stderr, "volent check: %s '%s'\n\n%s",
                   a == "--config" ? "missing value for" : "unknown option", a.c_str(), kCheckUsage);
      return 2;
    }
  }
  if (files.empty() && !config_path) {
    std::fprintf(stderr, "volent check: no FILE given\n\n%s", kCheckUsage);
    return 2;
  }

  Tally tally;
  std::optional<manifest::NodeConfig> config;
  if (config_path) {
    if (std::optional<std::string> text = ReadFile(*config_path, tally)) {
      manifest::Checked<manifest::NodeConfig> loaded = manifest::LoadNodeConfig(*text, *config_path, FolderOf(*config_path));
      if (Report(*config_path, loaded.problems, tally)) {
        config = std::move(loaded.value);
      } else {
        std::fprintf(stderr, "volent check: %s is not valid; capabilities are not checked against it\n",
                     config_path->c_str());
      }
    }
  }
  for (const std::string& file : files) CheckFile(file, config ? &*config : nullptr, tally);

  const int total = tally.ok + tally.invalid + tally.unreadable;
  std::printf("%d file%s checked: %d ok, %d invalid", total, total == 1 ? "" : "s", tally.ok, tally.invalid);
  if (tally.unreadable) std::printf(", %d unreadable", tally.unreadable);
  std::printf("\n");
  if (tally.unreadable) return 2;
  return tally.invalid ? 1 : 0;
}

}  // namespace volent::cli
