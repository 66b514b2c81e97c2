// The rule for agent names (metadata.name of a manifest, the {name} of
// /v1/agents/{name}): a DNS label, so a name is safe in a path, a file name,
// a log line and a metric label alike.
#pragma once

#include <string_view>

namespace volent::store {

inline constexpr size_t kMaxAgentNameLength = 63;

// True for 1 to 63 characters of [a-z0-9-] that start and end with a letter
// or digit.
bool IsValidAgentName(std::string_view name);

}  // namespace volent::store
