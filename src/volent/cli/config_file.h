// Reading a node configuration file for a `volent` command: the file read,
// checked by the manifest loader, every problem printed on stderr.
#pragma once

#include <optional>
#include <string>

#include "volent/manifest/manifest.h"

namespace volent::cli {

// The configuration in `path`, or nothing after printing why (prefixed with
// `command`, e.g. "volent node").
std::optional<manifest::NodeConfig> LoadConfigFile(const std::string& path, const char* command);

}  // namespace volent::cli
