// Allowlist matching (allowlist.h).
#include "volent/egress/allowlist.h"

#include "volent/egress/address_class.h"

namespace volent::egress {
namespace {

using manifest::AllowEntry;
using Entries = std::vector<const AllowEntry*>;

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Keeps the entries for which `keep` holds; when none is left, sets `reason`.
template <class Keep>
bool Narrow(Entries& entries, Keep keep, std::string& reason, const std::string& why) {
  Entries kept;
  for (const AllowEntry* e : entries) {
    if (keep(*e)) kept.push_back(e);
  }
  if (kept.empty()) {
    reason = why;
    return false;
  }
  entries = std::move(kept);
  return true;
}

// What the remaining entries allow, for a reason: "a, b, c".
template <class Field>
std::string Listed(const Entries& entries, Field field) {
  std::vector<std::string> seen;
  std::string out;
  for (const AllowEntry* e : entries) {
    std::string item = field(*e);
    if (item.empty()) item = "any";
    bool again = false;
    for (const std::string& s : seen) again = again || s == item;
    if (again) continue;
    seen.push_back(item);
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

int EntryPort(const AllowEntry& e) { return e.port != 0 ? e.port : DefaultPort(e.scheme); }

bool CidrMayMatch(const AllowEntry& e, const Url& url) {
  core::Result<Cidr> cidr = ParseCidr(e.cidr);
  if (!cidr.ok()) return false;           // the configuration loader refuses these already
  if (!url.ip) return true;               // a name: judged once resolved
  return CidrContains(*cidr, *url.ip);
}

}  // namespace

bool HostPatternMatches(std::string_view pattern, const Url& url) {
  if (pattern == "*") return true;
  if (url.host_kind != HostKind::kName) return false;
  if (pattern.substr(0, 2) == "*.") {
    std::string_view suffix = pattern.substr(1);  // ".example.com"
    const std::string& host = url.host;
    return host.size() > suffix.size() && host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return pattern == url.host;
}

Candidates MatchRequest(const std::vector<AllowEntry>& allowlist, std::string_view capability, const Url& url,
                        std::string_view method) {
  Candidates out;
  Entries entries;
  for (const AllowEntry& e : allowlist) {
    if (e.capability == capability) entries.push_back(&e);
  }
  const std::string cap = "capability " + Quoted(capability);
  if (entries.empty()) {
    out.deny_reason = "no egress allowlist entry for " + cap + "; add one to volent.yaml";
    return out;
  }
  const std::string path = url.Path();
  const bool ok =
      Narrow(entries, [&](const AllowEntry& e) { return e.scheme == url.scheme; }, out.deny_reason,
             "scheme " + url.scheme + " is not allowed for " + cap + " (allowed: " +
                 Listed(entries, [](const AllowEntry& e) { return e.scheme; }) + ")") &&
      Narrow(entries,
             [&](const AllowEntry& e) {
               return e.cidr.empty() ? HostPatternMatches(e.host, url) : CidrMayMatch(e, url);
             },
             out.deny_reason,
             "host " + url.host + " is not allowed for " + cap + " (allowed: " +
                 Listed(entries, [](const AllowEntry& e) { return e.cidr.empty() ? e.host : e.cidr; }) + ")") &&
      Narrow(entries, [&](const AllowEntry& e) { return EntryPort(e) == url.port; }, out.deny_reason,
             "port " + std::to_string(url.port) + " is not allowed for " + cap + " and host " + url.host +
                 " (allowed: " + Listed(entries, [](const AllowEntry& e) { return std::to_string(EntryPort(e)); }) +
                 ")") &&
      Narrow(entries, [&](const AllowEntry& e) { return path.compare(0, e.path_prefix.size(), e.path_prefix) == 0; },
             out.deny_reason,
             "path " + path + " is not under an allowed prefix for " + cap + " (allowed: " +
                 Listed(entries, [](const AllowEntry& e) { return e.path_prefix; }) + ")") &&
      Narrow(entries,
             [&](const AllowEntry& e) {
               if (e.methods.empty()) return true;
               for (const std::string& m : e.methods) {
                 if (m == method) return true;
               }
               return false;
             },
             out.deny_reason,
             "method " + std::string(method) + " is not allowed for " + cap + " on " + url.host + path +
                 " (allowed: " + Listed(entries, [](const AllowEntry& e) {
                   std::string m;
                   for (const std::string& x : e.methods) m += (m.empty() ? "" : " ") + x;
                   return m;
                 }) + ")");
  if (ok) out.entries = std::move(entries);
  return out;
}

std::string JudgeAddresses(const AllowEntry& entry, const std::vector<boost::asio::ip::address>& addresses) {
  if (addresses.empty()) return "the host has no address";
  if (entry.cidr.empty()) {
    for (const boost::asio::ip::address& a : addresses) {
      Classification c = ClassifyAddress(a);
      if (c.forbidden()) {
        return a.to_string() + " is " + c.Describe() + "; host entry " + Quoted(entry.host) +
               " never reaches such an address (only a cidr entry naming the range does)";
      }
    }
    return "";
  }
  core::Result<Cidr> cidr = ParseCidr(entry.cidr);
  if (!cidr.ok()) return "cidr entry " + cidr.message();
  for (const boost::asio::ip::address& a : addresses) {
    if (!CidrContains(*cidr, a)) return a.to_string() + " is outside cidr entry " + entry.cidr;
    const AddressClass c = ClassifyAddress(a).address_class;
    if (c == AddressClass::kUnspecified || c == AddressClass::kMulticast || c == AddressClass::kBroadcast) {
      return a.to_string() + " is " + std::string(AddressClassName(c)) + ", not a destination";
    }
  }
  return "";
}

Judgement JudgeCandidates(const Candidates& candidates, const std::vector<boost::asio::ip::address>& addresses) {
  Judgement out;
  for (const AllowEntry* e : candidates.entries) {
    std::string why = JudgeAddresses(*e, addresses);
    if (why.empty()) {
      out.entry = e;
      out.deny_reason.clear();
      return out;
    }
    if (out.deny_reason.find(why) != std::string::npos) continue;
    if (!out.deny_reason.empty()) out.deny_reason += "; ";
    out.deny_reason += why;
  }
  if (out.deny_reason.empty()) out.deny_reason = "no allowlist entry fits the request";
  return out;
}

}  // namespace volent::egress
