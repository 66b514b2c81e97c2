// A manifest sent in a request body, parsed and checked: the agent, or the
// problem to answer (400 malformed-body with the position of the syntax
// error, 422 invalid-manifest with every field error). Never throws.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <variant>

#include "volent/control/problem.h"
#include "volent/manifest/manifest.h"

namespace volent::control {

// Media types a manifest may be sent as.
inline const std::vector<std::string>& ManifestMediaTypes() {
  static const std::vector<std::string> kTypes = {"application/yaml", "application/x-yaml",
                                                  "text/yaml", "application/json"};
  return kTypes;
}

// REQUIRES: `content_type` is one of ManifestMediaTypes() (any case,
// parameters allowed). `instance` is the request path for the problem.
// `check_agent`, when given, adds its problems (the node's tool store) to a
// manifest that passes everything else; any problem answers 422.
std::variant<manifest::Agent, Problem> ParseManifestBody(
    std::string_view content_type, std::string_view body, const manifest::NodeConfig* config,
    const std::string& instance,
    const std::function<manifest::Problems(const manifest::Agent&)>& check_agent = nullptr);

}  // namespace volent::control
