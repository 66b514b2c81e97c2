// Host names, CIDR ranges and DNS server addresses as text (address.h).
#include "volent/manifest/address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/host_port.h"

namespace volent::manifest {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::optional<unsigned> Decimal(std::string_view s, unsigned max) {
  if (s.empty() || s.size() > 5 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v > max) return std::nullopt;
  return v;
}

using Bytes = std::vector<uint8_t>;

std::optional<Bytes> ParseIpv4(std::string_view s) {
  std::vector<std::string_view> parts = Split(s, '.');
  if (parts.size() != 4) return std::nullopt;
  Bytes out;
  for (std::string_view p : parts) {
    std::optional<unsigned> v = Decimal(p, 255);
    if (!v) return std::nullopt;
    out.push_back(static_cast<uint8_t>(*v));
  }
  return out;
}

std::optional<uint16_t> Hex16(std::string_view s) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<unsigned>(d);
  }
  return static_cast<uint16_t>(v);
}

// Groups of one side of "::" (an IPv4 tail allowed on the last side).
std::optional<std::vector<uint16_t>> Groups(std::string_view s, bool last) {
  std::vector<uint16_t> out;
  if (s.empty()) return out;
  std::vector<std::string_view> parts = Split(s, ':');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (last && i + 1 == parts.size() && parts[i].find('.') != std::string_view::npos) {
      std::optional<Bytes> v4 = ParseIpv4(parts[i]);
      if (!v4) return std::nullopt;
      out.push_back(static_cast<uint16_t>((*v4)[0] << 8 | (*v4)[1]));
      out.push_back(static_cast<uint16_t>((*v4)[2] << 8 | (*v4)[3]));
      continue;
    }
    std::optional<uint16_t> g = Hex16(parts[i]);
    if (!g) return std::nullopt;
    out.push_back(*g);
  }
  return out;
}

std::optional<Bytes> ParseIpv6(std::string_view s) {
  const size_t gap = s.find("::");
  std::optional<std::vector<uint16_t>> head, tail;
  if (gap == std::string_view::npos) {
    head = Groups(s, true);
    tail = std::vector<uint16_t>{};
    if (!head || head->size() != 8) return std::nullopt;
  } else {
    if (s.find("::", gap + 1) != std::string_view::npos) return std::nullopt;
    head = Groups(s.substr(0, gap), false);
    tail = Groups(s.substr(gap + 2), true);
    if (!head || !tail || head->size() + tail->size() > 7) return std::nullopt;
  }
  std::vector<uint16_t> groups = *head;
  groups.resize(8 - tail->size(), 0);
  groups.insert(groups.end(), tail->begin(), tail->end());
  Bytes out;
  for (uint16_t g : groups) {
    out.push_back(static_cast<uint8_t>(g >> 8));
    out.push_back(static_cast<uint8_t>(g & 0xff));
  }
  return out;
}

}  // namespace

std::string CheckHostPattern(std::string_view host) {
  if (host == "*") return "";
  std::string_view name = host;
  if (name.substr(0, 2) == "*.") name.remove_prefix(2);
  if (name.empty() || name.size() > 253) return "must be a host name of 1 to 253 characters";
  for (std::string_view label : Split(name, '.')) {
    if (label.empty()) return "has an empty label (\"..\" or a leading or trailing \".\")";
    if (label.size() > 63) return "has a label longer than 63 characters";
    if (label.front() == '-' || label.back() == '-') return "has a label that starts or ends with \"-\"";
    for (char c : label) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
        return "may hold only lowercase letters, digits, \"-\" and \".\" (and a leading \"*.\")";
      }
    }
  }
  if (ParseIpv4(name)) return "is an IP address; name an address range with \"cidr\" instead";
  return "";
}

std::string CheckCidr(std::string_view cidr) {
  const size_t slash = cidr.rfind('/');
  if (slash == std::string_view::npos) return "must be ADDRESS/PREFIX, e.g. 10.20.0.0/16";
  std::string_view address = cidr.substr(0, slash);
  const bool v6 = address.find(':') != std::string_view::npos;
  std::optional<Bytes> bytes = v6 ? ParseIpv6(address) : ParseIpv4(address);
  if (!bytes) return v6 ? "has an IPv6 address that does not parse" : "has an IPv4 address that is not a canonical dotted quad";
  const unsigned bits = static_cast<unsigned>(bytes->size() * 8);
  std::optional<unsigned> prefix = Decimal(cidr.substr(slash + 1), bits);
  if (!prefix) return "has a prefix length that is not 0 to " + std::to_string(bits);
  for (unsigned bit = *prefix; bit < bits; ++bit) {
    if ((*bytes)[bit / 8] & (0x80 >> (bit % 8))) return "has address bits set beyond the prefix length";
  }
  return "";
}

std::string CheckDnsServer(std::string_view text) {
  auto parsed = core::ParseHostPort(text, core::PortRule::kOptional);
  if (!parsed) return parsed.message();
  const std::string& host = parsed->host;
  if (parsed->ipv6) {
    std::array<uint8_t, 16> v6{};
    inet_pton(AF_INET6, host.c_str(), v6.data());  // parsed above
    const std::array<uint8_t, 12> mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::equal(mapped.begin(), mapped.end(), v6.begin())) {
      return "is an IPv4-mapped address; write it as plain IPv4";
    }
    if (v6 == std::array<uint8_t, 16>{} || v6[0] == 0xff) {
      return "is not a destination (unspecified or multicast)";
    }
    return "";
  }
  std::array<uint8_t, 4> v4{};
  if (inet_pton(AF_INET, host.c_str(), v4.data()) != 1) {
    return "has \"" + host + "\", which is not an IP address; name the DNS server by its address (a name would need "
           "a resolver to find it), e.g. 192.0.2.53, 192.0.2.53:5353 or [2001:db8::53]:53";
  }
  const bool broadcast = v4 == std::array<uint8_t, 4>{255, 255, 255, 255};
  if (v4 == std::array<uint8_t, 4>{} || (v4[0] >= 224 && v4[0] <= 239) || broadcast) {
    return "is not a destination (unspecified, multicast or broadcast)";
  }
  return "";
}

}  // namespace volent::manifest
