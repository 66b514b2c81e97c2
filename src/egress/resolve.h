// Name resolution for the egress gate, once per request, within its deadline
// (docs/egress.md, "Resolve once, pin").
//
// getaddrinfo cannot be cancelled, so it runs on a thread of its own; the
// caller waits for it until the deadline and no longer. A lookup that outlives
// its caller finishes and frees its state alone. The system resolver
// (nsswitch, /etc/hosts, resolv.conf) decides which servers are asked.
//
// Thread-safe: no shared state. Never throws but std::bad_alloc.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace volent::egress {

struct Resolved {
  std::vector<boost::asio::ip::address> addresses;  // in the resolver's order, no duplicates
  std::string error;                                // when empty: what went wrong
};

Resolved ResolveHost(const std::string& host, std::chrono::steady_clock::time_point deadline);

}  // namespace volent::egress
