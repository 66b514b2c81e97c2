// What kind of address an IP address is, for the egress gate's address rule
// (docs/egress.md, "Forbidden ranges"). Every address is "public" or one
// named forbidden class; a `host` allowlist entry never reaches a forbidden
// address, only a `cidr` entry naming the range does.
//
// Addresses that embed an IPv4 address:
//   - IPv4-mapped ::ffff:a.b.c.d takes the class of a.b.c.d: connecting to it
//     reaches a.b.c.d over IPv4, so a mapped public address is public and a
//     mapped loopback address is loopback.
//   - IPv4-compatible ::a.b.c.d (deprecated by RFC 4291) takes the class of
//     a.b.c.d when that is forbidden, else is "ipv4-compatible", forbidden:
//     nothing routes it, and accepting it has no use.
//   - NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo
//     (2001::/32) are forbidden as whole ranges: a translator or relay chooses
//     where they lead, possibly inside the network. The classification names
//     the embedded IPv4 address (6to4, NAT64 /96) for the reason.
// IPv6 outside 2000::/3 (global unicast) that no other row names is
// "reserved".
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/ip/address.hpp>

#include "core/result.h"

namespace volent::egress {

enum class AddressClass {
  kPublic,
  kLoopback,        // 127/8, ::1
  kUnspecified,     // 0/8, ::
  kPrivate,         // 10/8, 172.16/12, 192.168/16
  kLinkLocal,       // 169.254/16, fe80::/10
  kCloudMetadata,   // 169.254.169.254 (and fd00:ec2::254)
  kCgnat,           // 100.64/10
  kMulticast,       // 224/4, ff00::/8
  kBroadcast,       // 255.255.255.255
  kReserved,        // 240/4; IPv6 outside 2000::/3 not named elsewhere
  kDocumentation,   // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
  kBenchmark,       // 198.18/15
  kIetfProtocol,    // 192.0.0/24
  kIpv4Compatible,  // ::/96 with a public IPv4 inside
  kNat64,           // 64:ff9b::/96, 64:ff9b:1::/48
  kSixToFour,       // 2002::/16
  kTeredo,          // 2001::/32
  kUniqueLocal,     // fc00::/7
  kSiteLocal,       // fec0::/10
  kDiscard,         // 100::/64
};

// "public", "loopback", "cloud-metadata", ... (stable: logs and tests use them).
std::string_view AddressClassName(AddressClass c);

struct Classification {
  AddressClass address_class = AddressClass::kPublic;
  // For an address that embeds an IPv4 address (mapped, compatible, 6to4,
  // NAT64 /96): that address as text; else "".
  std::string embedded_ipv4;
  bool forbidden() const { return address_class != AddressClass::kPublic; }
  // "loopback", "private (RFC 1918)", "6to4 (embeds 127.0.0.1)", ...
  std::string Describe() const;
};

Classification ClassifyAddress(const boost::asio::ip::address& address);
Classification ClassifyV4(const std::array<uint8_t, 4>& bytes);
Classification ClassifyV6(const std::array<uint8_t, 16>& bytes);

// An address range of an allowlist `cidr` entry.
struct Cidr {
  boost::asio::ip::address base;  // host bits zero
  unsigned prefix = 0;
  std::string ToString() const;   // "10.0.0.0/8"
};
// ADDRESS/PREFIX: a canonical dotted quad with 0..32 or an IPv6 address with
// 0..128; no bits may be set past the prefix (a typo there would silently
// widen or move the range).
core::Result<Cidr> ParseCidr(std::string_view text);  // errors: kInvalidArgument

// True when `address` is inside `cidr`. An IPv4-mapped IPv6 address is
// compared as the IPv4 address it reaches; otherwise the families must agree.
bool CidrContains(const Cidr& cidr, const boost::asio::ip::address& address);

}  // namespace volent::egress
