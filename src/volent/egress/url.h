// The URLs the egress gate accepts, read strictly (docs/egress.md, "URLs").
//
// Only absolute http:// and https:// URLs with one unambiguous reading: the
// gate decides on the host it parsed, so a URL that another reader (a
// resolver, inet_aton, a server, a proxy) could take for a different host is
// refused rather than guessed at. Refused: userinfo ('@' anywhere in the
// authority), an empty host, percent-encoding in the host, backslashes, whitespace,
// control characters or non-ASCII anywhere, fragments, a host name with a
// trailing dot, numeric hosts not in canonical form (octal "0177.0.0.1", hex
// "0x7f.0.0.1", short "127.1", integer "2130706433", zero-padded
// "127.0.0.01"), IPv6 zones, ports outside 1..65535 or with a sign or
// leading zero, and "." or ".." path segments (also percent-encoded), which
// would let a path pass a prefix check and then leave it on the server.
//
// Accepted and normalized: the scheme and a host name are lowercased; an
// empty path becomes "/". Host names are LDH labels (letters, digits, '-'),
// 1..63 characters each, 253 in all; international names are written in
// their ASCII (xn--) form.
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/ip/address.hpp>

#include "core/result.h"

namespace volent::egress {

inline constexpr size_t kMaxUrlBytes = 8192;

enum class HostKind { kName, kIpv4, kIpv6 };

struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // lowercase name, dotted quad, or IPv6 text without brackets
  HostKind host_kind = HostKind::kName;
  std::optional<boost::asio::ip::address> ip;  // set for kIpv4 and kIpv6
  int port = 0;               // always set: the explicit port or the scheme's default
  bool explicit_port = false;
  std::string target;  // path and query, "/" at least: what goes on the request line

  std::string Path() const;       // the target without its query
  std::string Authority() const;  // for the Host header: host, [v6], ":port" when not the default
  std::string ToString() const;   // scheme://Authority() target: the URL as the gate reads it
};

// The URL, or what is wrong with it, for a person (kInvalidArgument).
core::Result<Url> ParseUrl(std::string_view text);

int DefaultPort(std::string_view scheme);  // 80, 443, or 0

}  // namespace volent::egress
