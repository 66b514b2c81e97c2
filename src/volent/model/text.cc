#include "volent/model/text.h"

namespace volent::model {
namespace {

std::string Cut(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return std::string(text.substr(0, n)) + "...";
}

// Nesting deeper than any answer needs: the value is refused before it is
// parsed, since printing (dump) and comparing a parsed value recurse once
// per level and a hostile body of 8 MiB of "[" would exhaust the stack.
constexpr int kMaxDepth = 128;

bool TooDeep(std::string_view body) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

std::string Quoted(std::string_view text, size_t max) {
  return nlohmann::json(Cut(text, max)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string Excerpt(std::string_view text, size_t max) {
  // Through JSON and back: invalid UTF-8 becomes U+FFFD.
  std::string valid = nlohmann::json::parse(Quoted(text, max)).get<std::string>();
  for (char& c : valid) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  }
  return valid;
}

nlohmann::json ParseJson(std::string_view body) {
  if (TooDeep(body)) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace volent::model
