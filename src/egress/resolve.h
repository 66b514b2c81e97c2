// Name resolution for the egress gate, once per request, within its deadline
// (docs/egress.md, "Resolve once, pin").
//
// getaddrinfo cannot be cancelled, so it runs on a thread of its own; the
// caller waits for it until the deadline and no longer. A lookup that outlives
// its caller finishes and frees its state alone. With no `dns_server` the
// system resolver (nsswitch, /etc/hosts, resolv.conf) decides which servers
// are asked; with one, A and AAAA queries go to that server only (UDP, then
// TCP for a truncated answer), and /etc/hosts is not read.
//
// Thread-safe: no shared state. Never throws but std::bad_alloc.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace volent::egress {

struct Resolved {
  std::vector<boost::asio::ip::address> addresses;  // in the resolver's order, no duplicates
  std::string error;                                // when empty: what went wrong
};

// `dns_server`: "" for the system resolver, else "IP" or "IP:PORT" (port 53
// when left out; "[v6]:PORT" for IPv6).
Resolved ResolveHost(const std::string& host, std::chrono::steady_clock::time_point deadline,
                     const std::string& dns_server = "");

// Checks a dns_server value: "" when usable, else why not (for a person).
std::string CheckDnsServer(const std::string& dns_server);

// The asynchronous form: `done` is called exactly once with the answer, on
// the lookup's own thread (or the caller's, when no thread can be started).
void ResolveHostAsync(const std::string& host, std::chrono::steady_clock::time_point deadline,
                      const std::string& dns_server, std::function<void(Resolved)> done);

}  // namespace volent::egress
