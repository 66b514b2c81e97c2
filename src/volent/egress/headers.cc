// Request line and header checks (headers.h).
#include "volent/egress/headers.h"

#include <array>

namespace volent::egress {
namespace {

bool EqualsLower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

bool StartsLower(std::string_view text, std::string_view lower) {
  return text.size() >= lower.size() && EqualsLower(text.substr(0, lower.size()), lower);
}

bool HasLineBreakOrNul(std::string_view s) { return s.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos; }

}  // namespace

bool IsToken(std::string_view text) {
  if (text.empty()) return false;
  for (unsigned char c : text) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool IsDroppedHeader(std::string_view name) {
  static constexpr std::array<std::string_view, 10> kExact = {
      "connection", "keep-alive", "te", "trailer", "transfer-encoding",
      "upgrade", "host", "forwarded", "content-length", "proxy-connection"};
  for (std::string_view h : kExact) {
    if (EqualsLower(name, h)) return true;
  }
  return StartsLower(name, "proxy-") || StartsLower(name, "x-forwarded-");
}

core::Result<Headers> FilterHeaders(const Headers& headers) {
  auto deny = [](std::string why) { return core::Error{std::move(why), core::ErrorKind::kInvalidArgument}; };
  Headers out;
  for (const auto& [name, value] : headers) {
    if (HasLineBreakOrNul(name) || HasLineBreakOrNul(value)) {
      return deny("header \"" + (HasLineBreakOrNul(name) ? std::string("(name with CR, LF or NUL)") : name) +
                  "\" contains CR, LF or NUL (header injection)");
    }
    if (!IsToken(name)) {
      return deny("header name \"" + name + "\" is not a token (letters, digits and !#$%&'*+-.^_`|~)");
    }
    for (unsigned char c : value) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return deny("header \"" + name + "\" has a control character in its value");
      }
    }
    if (IsDroppedHeader(name)) continue;
    out.emplace_back(name, value);
  }
  return out;
}

}  // namespace volent::egress
