// The address rules of volent.yaml that a schema pattern cannot say:
// host names label by label, CIDR ranges (IPv4 and IPv6, host bits zero)
// and HOST:PORT. Text only: no resolver, no socket API.
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <string>
#include <string_view>

namespace volent::manifest {

// "" when `host` is a lowercase DNS name, "*.name" or "*"; else what is wrong.
std::string CheckHostPattern(std::string_view host);

// "" when `cidr` is ADDRESS/PREFIX with a canonical IPv4 dotted quad (no
// leading zeros) or an IPv6 address, a prefix within 32 or 128, and no bits
// set past the prefix; else what is wrong.
std::string CheckCidr(std::string_view cidr);

struct HostPort {
  std::string host;  // without IPv6 brackets
  int port = 0;
  std::string error;  // "" when parsed
};
// HOST:PORT or [V6]:PORT. Port 0 ("any free port") is an error unless
// `allow_any_port` (a command-line override may ask for it; a configuration
// names a fixed port).
HostPort ParseHostPort(std::string_view text, bool allow_any_port = false);

}  // namespace volent::manifest
