// IP addresses written as text, read strictly (docs/egress.md). One spelling
// per IPv4 address: the dotted quad in canonical decimal ("127.0.0.1"); octal
// ("0177.0.0.1"), hexadecimal ("0x7f.0.0.1"), short ("127.1"), integer
// ("2130706433") and zero-padded ("127.000.0.1") forms are not addresses
// here, although inet_aton would read them. IPv6 in RFC 4291 text form,
// without a zone ("%eth0").
//
// Thread-safe: pure functions. Never throws.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include <boost/asio/ip/address.hpp>

namespace volent::egress {

std::optional<boost::asio::ip::address_v4> ParseCanonicalIpv4(std::string_view text);
std::optional<boost::asio::ip::address_v6> ParseIpv6(std::string_view text);

// True when the text is numeric the way a URL host reader (WHATWG, inet_aton)
// could take for an IPv4 address: its last dot-separated label is all
// decimal digits or "0x" followed by hex digits. Such a host is an address
// in canonical form or it is rejected; it is never looked up as a name.
bool LooksNumeric(std::string_view host);

// "127.0.0.1:80", "[::1]:443".
std::string FormatEndpoint(const boost::asio::ip::address& address, int port);

}  // namespace volent::egress
