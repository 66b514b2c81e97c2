// Fuzz target for what the egress gate reads from untrusted input before
// anything is sent (docs/egress.md): URLs (egress/url.h), address
// classification and CIDR ranges (egress/address_class.h), and allowlist
// matching (egress/allowlist.h). No socket is opened.
//
// The input is read as a URL, as a CIDR range, and as raw address bytes.
// What must hold, beyond no crash, hang or sanitizer report:
//   - a URL parses exactly when no error is reported; a parsed URL has
//     scheme http or https, a port in 1..65535, a non-empty host with no
//     uppercase letter, a target starting with '/', no '#', '\\', '@' in the
//     host or byte outside printable ASCII, an IP exactly when the host kind
//     says so, and it is a fixed point: SCHEME://AUTHORITY TARGET parses to
//     the same URL;
//   - a numeric-looking host parses only as a canonical IPv4 address, whose
//     text is the host itself;
//   - every classification has a name; an address that embeds an IPv4
//     address names it;
//   - a CIDR range that parses prints as text that parses to the same range,
//     and contains its own base address;
//   - every allowlist entry MatchRequest returns fits the request's
//     capability, scheme, port, path prefix and method.
//
// Seeds: fuzz/corpus/egress_url_fuzz (good and refused URLs, CIDR ranges).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "volent/egress/address_class.h"
#include "volent/egress/allowlist.h"
#include "volent/egress/ip_literal.h"
#include "volent/egress/url.h"

namespace {

using namespace volent;
using namespace volent::egress;

void Check(bool condition) {
  if (!condition) std::abort();
}

bool SameUrl(const Url& a, const Url& b) {
  return a.scheme == b.scheme && a.host == b.host && a.host_kind == b.host_kind && a.ip == b.ip &&
         a.port == b.port && a.target == b.target;
}

const std::vector<manifest::AllowEntry>& Allowlist() {
  static const std::vector<manifest::AllowEntry> list = {
      {"api", "https", "*.example.com", "", 0, "/v1/", {"GET", "POST"}},
      {"api", "http", "", "10.20.0.0/16", 8080, "/api/", {"GET"}},
      {"any", "https", "*", "", 0, "", {}},
      {"v6", "http", "", "fd00::/8", 0, "", {}},
  };
  return list;
}

void CheckClassification(const boost::asio::ip::address& address) {
  Classification c = ClassifyAddress(address);
  Check(AddressClassName(c.address_class) != "unknown");
  Check(!c.Describe().empty());
  if (!c.embedded_ipv4.empty()) Check(ParseCanonicalIpv4(c.embedded_ipv4).has_value());
}

void CheckUrl(std::string_view text) {
  core::Result<Url> parsed = ParseUrl(text);
  if (!parsed.ok()) {
    Check(!parsed.message().empty());
    return;
  }
  const Url& u = *parsed;
  Check(u.scheme == "http" || u.scheme == "https");
  Check(u.port >= 1 && u.port <= 65535);
  Check(!u.host.empty());
  Check(!u.target.empty() && u.target.front() == '/');
  for (char c : u.host) Check(!(c >= 'A' && c <= 'Z') && c != '@' && c != '%');
  for (unsigned char c : text) Check(c > 0x20 && c < 0x7f && c != '\\' && c != '#');
  Check(u.ip.has_value() == (u.host_kind != HostKind::kName));
  if (u.host_kind == HostKind::kName) Check(!LooksNumeric(u.host));
  if (u.host_kind == HostKind::kIpv4) {
    Check(u.ip->is_v4() && u.ip->to_string() == u.host);
  }
  if (u.ip) CheckClassification(*u.ip);

  core::Result<Url> again = ParseUrl(u.scheme + "://" + u.Authority() + u.target);
  Check(again.ok());
  Check(SameUrl(*again, u));

  for (std::string_view capability : {"api", "any", "v6", "none"}) {
    for (std::string_view method : {"GET", "POST", "DELETE"}) {
      Candidates c = MatchRequest(Allowlist(), capability, u, method);
      Check(c.entries.empty() != c.deny_reason.empty());
      for (const manifest::AllowEntry* e : c.entries) {
        Check(e->capability == capability && e->scheme == u.scheme);
        Check((e->port == 0 ? DefaultPort(e->scheme) : e->port) == u.port);
        Check(u.Path().compare(0, e->path_prefix.size(), e->path_prefix) == 0);
        if (!e->cidr.empty() && u.ip) {
          core::Result<Cidr> cidr = ParseCidr(e->cidr);
          Check(cidr.ok() && CidrContains(*cidr, *u.ip));
        }
      }
      if (u.ip) {
        Judgement j = JudgeCandidates(c, {*u.ip});
        Check((j.entry == nullptr) != j.deny_reason.empty() || c.entries.empty());
        if (j.entry && j.entry->cidr.empty()) Check(!ClassifyAddress(*u.ip).forbidden());
      }
    }
  }
}

void CheckCidr(std::string_view text) {
  core::Result<Cidr> parsed = ParseCidr(text);
  if (!parsed.ok()) {
    Check(!parsed.message().empty());
    return;
  }
  core::Result<Cidr> again = ParseCidr(parsed->ToString());
  Check(again.ok() && again->base == parsed->base && again->prefix == parsed->prefix);
  Check(CidrContains(*parsed, parsed->base));
}

void CheckBytes(const uint8_t* data, size_t size) {
  if (size >= 4) {
    std::array<uint8_t, 4> v4;
    std::memcpy(v4.data(), data, 4);
    CheckClassification(boost::asio::ip::address_v4(v4));
  }
  if (size >= 16) {
    std::array<uint8_t, 16> v6;
    std::memcpy(v6.data(), data, 16);
    CheckClassification(boost::asio::ip::address_v6(v6));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckUrl(text);
  CheckCidr(text);
  CheckBytes(data, size);
  return 0;
}
