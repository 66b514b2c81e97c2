#include "volent/store/agent_name.h"

namespace volent::store {

bool IsValidAgentName(std::string_view name) {
  if (name.empty() || name.size() > kMaxAgentNameLength) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : name) {
    if (!alnum(c) && c != '-') return false;
  }
  return alnum(name.front()) && alnum(name.back());
}

}  // namespace volent::store
