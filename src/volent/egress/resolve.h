// Name resolution for the egress gate, once per request, within its deadline
// (docs/egress.md, "Resolve once, pin"; docs/decisions/0021-dns-resolver.md).
//
// Two resolvers, chosen by `dns_server`:
//   ""          the system resolver (getaddrinfo: nsswitch, /etc/hosts,
//               resolv.conf). getaddrinfo cannot be cancelled, so it runs on
//               a thread of its own; the caller waits for it until the
//               deadline and no longer. A lookup that outlives its caller
//               finishes and frees its state alone.
//   "IP[:PORT]" that DNS server and nothing else (c-ares): one A and one AAAA
//               query, over UDP, again over TCP when an answer is truncated;
//               a CNAME chain is followed within the answer (no further
//               query); no /etc/hosts, no resolv.conf, no search domains.
//               Non-blocking sockets on the caller's thread, given up at the
//               deadline.
// An IP-literal host is returned as it is, by both.
//
// Errors say what the server answered: no such name (NXDOMAIN), no A or
// AAAA record, a server failure (SERVFAIL) or refusal, no answer in time, a
// malformed answer. When one family answered and the other failed, the
// addresses found are returned (the gate judges and connects to those only).
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
  std::vector<boost::asio::ip::address> addresses;  // in the resolver's order (A before AAAA
                                                    // with a DNS server), no duplicates
  std::string error;                                // when not empty: what went wrong
};

// `dns_server`: "" for the system resolver, else a DNS server as
// CheckDnsServer accepts it.
Resolved ResolveHost(const std::string& host, std::chrono::steady_clock::time_point deadline,
                     const std::string& dns_server = "");

// Checks a dns_server value: "" when usable, else why not (for a person).
// Accepted: "" (the system resolver), an IPv4 address "192.0.2.53" or
// "192.0.2.53:5353", an IPv6 address in brackets "[2001:db8::53]" or
// "[::1]:5353" (port 53 when left out). Refused: a bare IPv6 address
// ("::1:53" could be read as a port), a zone ("%eth0"), a name (finding the
// server would need a resolver), a port outside 1..65535 or with a leading
// zero, and addresses that are not destinations (unspecified, multicast,
// broadcast).
std::string CheckDnsServer(const std::string& dns_server);

// The asynchronous form: never blocks the caller. Each lookup runs on a
// detached thread of its own (a lookup is short; a thread per lookup keeps
// the resolvers free of shared state). `done` is called exactly once with
// the answer, on that thread, by the deadline — or on the caller's thread,
// before this returns, when no thread can be started.
void ResolveHostAsync(const std::string& host, std::chrono::steady_clock::time_point deadline,
                      const std::string& dns_server, std::function<void(Resolved)> done);

}  // namespace volent::egress
