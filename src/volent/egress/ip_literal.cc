// Strict IP address text (ip_literal.h).
#include "volent/egress/ip_literal.h"

#include <string>

namespace volent::egress {

std::optional<boost::asio::ip::address_v4> ParseCanonicalIpv4(std::string_view text) {
  std::array<uint8_t, 4> bytes{};
  size_t part = 0, i = 0;
  while (part < 4) {
    const size_t start = i;
    unsigned value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 3) {
      value = value * 10 + static_cast<unsigned>(text[i] - '0');
      ++i;
    }
    const size_t digits = i - start;
    if (digits == 0 || value > 255) return std::nullopt;
    if (digits > 1 && text[start] == '0') return std::nullopt;  // "01": octal to some readers
    bytes[part++] = static_cast<uint8_t>(value);
    if (part < 4) {
      if (i >= text.size() || text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != text.size()) return std::nullopt;
  return boost::asio::ip::address_v4(bytes);
}

std::optional<boost::asio::ip::address_v6> ParseIpv6(std::string_view text) {
  if (text.empty() || text.size() > 45) return std::nullopt;
  for (char c : text) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
                    c == ':' || c == '.';
    if (!ok) return std::nullopt;  // no zone id, no spaces, nothing inet_pton might skip
  }
  boost::system::error_code ec;
  boost::asio::ip::address_v6 address = boost::asio::ip::make_address_v6(std::string(text), ec);
  if (ec) return std::nullopt;
  return address;
}

bool LooksNumeric(std::string_view host) {
  const size_t dot = host.rfind('.');
  std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
    for (char c : last.substr(2)) {
      const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex) return false;
    }
    return true;
  }
  for (char c : last) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string FormatEndpoint(const boost::asio::ip::address& address, int port) {
  if (address.is_v6()) return "[" + address.to_string() + "]:" + std::to_string(port);
  return address.to_string() + ":" + std::to_string(port);
}

}  // namespace volent::egress
