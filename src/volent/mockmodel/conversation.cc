#include "volent/mockmodel/conversation.h"

#include <cstdint>
#include <cstdio>

#include "core/json.h"

namespace volent::mockmodel {
namespace {

// FNV-1a: small, stable across platforms and runs (std::hash is neither).
void Mix(uint64_t& h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= 0xff;  // separates fields: "ab"+"c" differs from "a"+"bc"
  h *= 0x100000001b3ULL;
}

size_t Tokens(size_t bytes) { return bytes == 0 ? 1 : (bytes + 3) / 4; }

}  // namespace

Usage EstimateUsage(const Conversation& conversation, const Answer& answer) {
  size_t out = answer.text.size();
  for (const auto& call : answer.tool_calls) out += call.name.size() + core::DumpJson(call.arguments).size();
  return Usage{Tokens(conversation.input_bytes), Tokens(out)};
}

std::string ToolCallId(const std::string& prefix, const Conversation& conversation, size_t index) {
  uint64_t h = 0xcbf29ce484222325ULL;
  Mix(h, conversation.model);
  Mix(h, conversation.first_user_text);
  Mix(h, std::to_string(conversation.assistant_turns));
  Mix(h, std::to_string(index));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return prefix + "mock" + hex;
}

}  // namespace volent::mockmodel
