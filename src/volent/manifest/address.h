// The address rules of volent.yaml that a schema pattern cannot say:
// host names label by label, CIDR ranges (IPv4 and IPv6, host bits zero)
// and DNS server addresses (HOST:PORT itself is core/host_port.h). Text only: no resolver, no socket API.
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

// "" when `text` is a DNS server egress can use: "IPv4", "IPv4:PORT",
// "[IPv6]" or "[IPv6]:PORT" (core/host_port.h with an optional port; 53
// when left out), the address a literal (inet_pton's strict dotted quad: no
// octal, hex or short forms; a name would need a resolver to find the
// server), not IPv4-mapped, unspecified, multicast or broadcast. Else a
// phrase saying what is wrong, to follow the value. The node's configuration
// check and the egress gate both ask this.
std::string CheckDnsServer(std::string_view text);

}  // namespace volent::manifest
