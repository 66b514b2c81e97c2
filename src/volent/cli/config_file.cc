#include "volent/cli/config_file.h"

#include <cstdio>
#include <filesystem>

#include "core/file_read.h"
#include "volent/manifest/yaml_reader.h"

namespace volent::cli {

std::optional<manifest::NodeConfig> LoadConfigFile(const std::string& path, const char* command) {
  // Through the one capped reader (core/file_read.h) with the manifest
  // reader's cap (1 MiB): a larger file is refused unread, and what that
  // reader refuses (it decides about FIFOs and devices) is refused here.
  bool too_large = false;
  core::Result<std::string> text = core::ReadFileCapped(path, manifest::kMaxDocumentBytes, &too_large);
  if (!text.ok()) {
    if (too_large) {
      std::fprintf(stderr, "%s:1:1: the document is larger than %zu bytes\n", path.c_str(), manifest::kMaxDocumentBytes);
    } else {
      std::fprintf(stderr, "%s: %s\n", command, text.message().c_str());
    }
    return std::nullopt;
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  auto loaded = manifest::LoadNodeConfig(*text, path, dir.empty() ? "." : dir);
  if (!loaded.ok()) {
    for (const auto& p : loaded.problems) std::fprintf(stderr, "%s\n", manifest::FormatProblem(p).c_str());
    return std::nullopt;
  }
  return std::move(*loaded.value);
}

}  // namespace volent::cli
