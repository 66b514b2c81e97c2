// Allowlist matching for the egress gate (docs/egress.md, "Rules").
//
// Two steps, because a `cidr` entry can only judge a name once it is
// resolved, and nothing should be resolved for a request no entry could
// allow:
//   1. MatchRequest: the entries of the capability whose scheme, host, port,
//      path prefix and method fit the request. A `cidr` entry fits an IP
//      literal inside its range, and any name (decided in step 2). When none
//      fits, the reason names the first thing that did not match, in this
//      order: capability, scheme, host, port, path prefix, method.
//   2. JudgeAddresses: the addresses the host resolved to (or its literal)
//      against each fitting entry in order; the first entry that accepts all
//      of them allows the request. A `host` entry accepts no forbidden address
//      (address_class.h): one forbidden address refuses the request, named
//      with its class. A `cidr` entry accepts only addresses inside its range,
//      and never an unspecified, multicast or broadcast one (not a unicast
//      destination, whatever the range says).
//
// Host patterns: an exact name; "*.example.com" matches names with one or
// more labels before ".example.com" but not "example.com" itself (list both
// when both are meant); "*" matches any host, IP literals included. Patterns
// never match by address: "*" does not open 10.0.0.0/8, only a cidr does.
// A path prefix is compared byte for byte with the URL's path (without the
// query): "/api" also matches "/apiary"; write "/api/" for a folder.
// Methods are compared exactly ("GET", not "get").
//
// Thread-safe: pure functions. Never throws but std::bad_alloc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "volent/egress/url.h"
#include "volent/manifest/manifest.h"

namespace volent::egress {

struct Candidates {
  std::vector<const manifest::AllowEntry*> entries;  // in allowlist order
  std::string deny_reason;                           // when entries is empty
};
Candidates MatchRequest(const std::vector<manifest::AllowEntry>& allowlist, std::string_view capability,
                        const Url& url, std::string_view method);

// True when `pattern` ("api.example.com", "*.example.com", "*") matches the host.
bool HostPatternMatches(std::string_view pattern, const Url& url);

// "" when `entry` accepts every one of `addresses` (not empty); else why not.
std::string JudgeAddresses(const manifest::AllowEntry& entry, const std::vector<boost::asio::ip::address>& addresses);

struct Judgement {
  const manifest::AllowEntry* entry = nullptr;  // the entry that allows the request
  std::string deny_reason;                      // when !entry: every candidate's reason
};
Judgement JudgeCandidates(const Candidates& candidates, const std::vector<boost::asio::ip::address>& addresses);

}  // namespace volent::egress
