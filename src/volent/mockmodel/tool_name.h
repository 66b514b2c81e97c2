// What both APIs accept as a tool (function) name: 1 to 64 of
// [A-Za-z0-9_-]. A node that sends anything else would be refused by the
// real services, so the mock refuses it too.
#pragma once

#include <string_view>

namespace volent::mockmodel {

inline bool IsToolName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace volent::mockmodel
