#include "volent/config_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace volent::cli {

std::optional<manifest::NodeConfig> LoadConfigFile(const std::string& path, const char* command) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s: %s\n", command, path.c_str(), std::strerror(errno));
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string dir = std::filesystem::path(path).parent_path().string();
  auto loaded = manifest::LoadNodeConfig(text.str(), path, dir.empty() ? "." : dir);
  if (!loaded.ok()) {
    for (const auto& p : loaded.problems) std::fprintf(stderr, "%s\n", manifest::FormatProblem(p).c_str());
    return std::nullopt;
  }
  return std::move(*loaded.value);
}

}  // namespace volent::cli
