// HOST:PORT as text (host_port.h).
#include "core/host_port.h"

#include <arpa/inet.h>

#include <optional>

namespace core {
namespace {

Error Invalid(std::string message) { return Error{std::move(message), ErrorKind::kInvalidArgument}; }

// Plain decimal digits, no sign and no leading zero (but "0" itself).
std::optional<int> Port(std::string_view text) {
  if (text.empty() || text.size() > 5 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value > 65535) return std::nullopt;
  return value;
}

Status CheckIpv6(std::string_view address) {
  if (address.find('%') != std::string_view::npos) {
    return Invalid("has a zone (%...); use a global or loopback IPv6 address");
  }
  unsigned char bytes[16];
  if (inet_pton(AF_INET6, std::string(address).c_str(), bytes) != 1) {
    return Invalid("has an IPv6 address that does not parse");
  }
  return Status::Ok();
}

}  // namespace

Result<HostPort> ParseHostPort(std::string_view text, PortRule rule) {
  HostPort out;
  std::string_view host = text, port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return Invalid("opens an IPv6 address with [ but does not close it");
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return Invalid("may have only \":PORT\" after ]");
      port = text.substr(close + 2);
      out.has_port = true;
    }
    if (Status v6 = CheckIpv6(host); !v6.ok()) return v6.error();
    out.ipv6 = true;
  } else {
    const size_t colon = text.find(':');
    if (colon != std::string_view::npos && text.find(':', colon + 1) != std::string_view::npos) {
      return Invalid("must put an IPv6 address in brackets, e.g. [::1]:8470");
    }
    if (colon != std::string_view::npos) {
      host = text.substr(0, colon);
      port = text.substr(colon + 1);
      out.has_port = true;
    }
  }
  if (!out.has_port && rule != PortRule::kOptional) return Invalid("must be HOST:PORT");
  if (host.empty()) return Invalid("has no host");
  if (out.has_port) {
    const std::optional<int> value = Port(port);
    const bool any = rule == PortRule::kRequiredOrAny;
    if (!value || (*value == 0 && !any)) {
      return Invalid(any ? "has a port that is not 0 to 65535 (without leading zeros)"
                         : "has a port that is not 1 to 65535 (without leading zeros)");
    }
    out.port = *value;
  }
  out.host = std::string(host);
  return out;
}

std::string FormatHostPort(std::string_view host, int port) {
  const bool ipv6 = host.find(':') != std::string_view::npos;
  return (ipv6 ? "[" + std::string(host) + "]" : std::string(host)) + ":" + std::to_string(port);
}

}  // namespace core
