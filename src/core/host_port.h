// HOST:PORT as the products' command lines and configuration files write an
// address: "127.0.0.1:8470", "example.com:443", "[::1]:8470". One parser for
// `ampoule mcp --http`, `volent node --listen`, `volent mock-model --listen`,
// volent.yaml's listen and egress.dns_server, so that they accept and refuse
// the same text. Text only: no resolver, no socket.
//
// Refused everywhere: an empty host; an IPv6 address without brackets (its
// last group could be read as the port); brackets around anything but an
// IPv6 address (a zone such as %eth0 included); anything after "]" but
// ":PORT"; a port that is not plain decimal digits (no sign, no leading
// zero) or is out of range. What the host must be beyond that (a literal
// address, a name) is the caller's rule.
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace core {

enum class PortRule {
  kRequired,       // HOST:PORT, port 1 to 65535 (a configured address)
  kRequiredOrAny,  // HOST:PORT, port 0 to 65535; 0 asks the system for a free port
  kOptional,       // HOST or HOST:PORT, port 1 to 65535 when given
};

struct HostPort {
  std::string host;      // without the IPv6 brackets
  int port = 0;          // 0 when no port was given (kOptional) or 0 was asked for
  bool has_port = false;
  bool ipv6 = false;     // written in brackets (and so an IPv6 address)
};

// Errors (kInvalidArgument) are phrases that follow the value's name, e.g.
// "must be HOST:PORT", "has a port that is not 1 to 65535 (without leading
// zeros)"; the caller says which value it was.
Result<HostPort> ParseHostPort(std::string_view text, PortRule rule = PortRule::kRequired);

// The address as ParseHostPort reads it back: "127.0.0.1:8470", "[::1]:8470"
// (a host holding a colon is an IPv6 address and is put in brackets).
std::string FormatHostPort(std::string_view host, int port);

}  // namespace core
