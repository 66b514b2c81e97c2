// LoadNodeConfig (manifest.h): the schema, then what it cannot say: listen
// address and port, host names and CIDR ranges label by label and bit by
// bit, unique tool key names, model keys bound to allowlisted capabilities
// (one key each), the egress DNS server as an address that is a destination.
// Relative data_dir and key_file are resolved against
// base_dir; the key files themselves are read at node start, not here
// (model/keys.h), so `volent check` works away from the node's secrets.
#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>

#include "volent/manifest/address.h"
#include "volent/manifest/document.h"
#include "volent/manifest/manifest.h"

namespace volent::manifest {
namespace {

using nlohmann::json;

void CheckAllowlist(CheckedDocument& doc) {
  const json* allow = Member(Member(&doc.value, "egress"), "allow");
  if (allow == nullptr || !allow->is_array()) return;
  for (size_t i = 0; i < allow->size(); ++i) {
    const std::string pointer = "/egress/allow/" + std::to_string(i);
    const json& entry = (*allow)[i];
    if (const json* host = Member(&entry, "host"); host && host->is_string()) {
      std::string why = CheckHostPattern(host->get<std::string>());
      if (!why.empty() && !doc.HasProblemAt(pointer + "/host")) doc.Add(pointer + "/host", "the host " + why);
    }
    if (const json* cidr = Member(&entry, "cidr"); cidr && cidr->is_string()) {
      std::string why = CheckCidr(cidr->get<std::string>());
      if (!why.empty() && !doc.HasProblemAt(pointer + "/cidr")) doc.Add(pointer + "/cidr", "the range " + why);
    }
  }
}

// "" when `text` is "IPv4", "IPv4:PORT", "[IPv6]" or "[IPv6]:PORT" naming a
// destination; else what is wrong. The same rules as the gate's own check
// (egress/resolve.h CheckDnsServer, which this library does not link):
// inet_pton's strict dotted quad, no zone, no IPv4-mapped form, a port of
// 1..65535 without leading zeros, not unspecified, multicast or broadcast.
std::string CheckDnsServerText(const std::string& text) {
  std::string address = text, port;
  bool has_port = false;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos) return "opens an IPv6 address with [ but does not close it";
    address = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return "may have only \":PORT\" after ]";
      port = text.substr(close + 2);
      has_port = true;
    }
    std::array<uint8_t, 16> v6{};
    if (address.find('%') != std::string::npos) return "has a zone (%...); use a global or loopback IPv6 address";
    if (::inet_pton(AF_INET6, address.c_str(), v6.data()) != 1) return "\"" + address + "\" is not an IPv6 address";
    const std::array<uint8_t, 12> mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::equal(mapped.begin(), mapped.end(), v6.begin())) return "is an IPv4-mapped address; write it as plain IPv4";
    if (v6 == std::array<uint8_t, 16>{}) return "is unspecified (::), not a destination";
    if (v6[0] == 0xff) return "is a multicast address, not a destination";
  } else {
    const size_t colons = static_cast<size_t>(std::count(text.begin(), text.end(), ':'));
    if (colons > 1) return "must put an IPv6 address in brackets, e.g. [2001:db8::53]:53";
    if (colons == 1) {
      address = text.substr(0, text.find(':'));
      port = text.substr(text.find(':') + 1);
      has_port = true;
    }
    std::array<uint8_t, 4> v4{};
    if (::inet_pton(AF_INET, address.c_str(), v4.data()) != 1) {
      return "\"" + address + "\" is not an IP address (a dotted quad such as 192.0.2.53)";
    }
    if (v4 == std::array<uint8_t, 4>{}) return "is unspecified (0.0.0.0), not a destination";
    if (v4[0] >= 224 && v4[0] <= 239) return "is a multicast address, not a destination";
    if (v4 == std::array<uint8_t, 4>{255, 255, 255, 255}) return "is the broadcast address, not a destination";
  }
  if (has_port) {
    int value = 0;
    bool ok = !port.empty() && port.size() <= 5 && port.front() != '0';
    for (char c : port) {
      ok = ok && c >= '0' && c <= '9';
      if (ok) value = value * 10 + (c - '0');
    }
    if (!ok || value < 1 || value > 65535) return "has a port that is not 1 to 65535 (without leading zeros)";
  }
  return "";
}

void CheckEgressOptions(CheckedDocument& doc) {
  const json* server = Member(Member(&doc.value, "egress"), "dns_server");
  if (server == nullptr || !server->is_string() || doc.HasProblemAt("/egress/dns_server")) return;
  std::string why = CheckDnsServerText(server->get<std::string>());
  if (!why.empty()) doc.Add("/egress/dns_server", "the DNS server " + why);
}

void CheckModelKeys(CheckedDocument& doc) {
  const json* keys = Member(&doc.value, "model_keys");
  if (keys == nullptr || !keys->is_array()) return;
  std::set<std::string> allowed;
  if (const json* allow = Member(Member(&doc.value, "egress"), "allow"); allow && allow->is_array()) {
    for (const json& entry : *allow) allowed.insert(StringAt(&entry, "capability"));
  }
  std::map<std::string, size_t> first;
  for (size_t i = 0; i < keys->size(); ++i) {
    const std::string pointer = "/model_keys/" + std::to_string(i) + "/capability";
    const json* capability = Member(&(*keys)[i], "capability");
    if (capability == nullptr || !capability->is_string() || doc.HasProblemAt(pointer)) continue;
    const std::string name = capability->get<std::string>();
    auto [it, inserted] = first.emplace(name, i);
    if (!inserted) {
      doc.Add(pointer, "a second key for capability " + json(name).dump() + " (also model_keys entry " +
                           std::to_string(it->second) + "): one key per capability");
    } else if (!allowed.count(name)) {
      doc.Add(pointer, "capability " + json(name).dump() +
                           " has no entry in egress.allow, so this key could never be sent: add one or remove the key");
    }
  }
}

void CheckRest(CheckedDocument& doc) {
  if (const json* listen = Member(&doc.value, "listen"); listen && listen->is_string()) {
    HostPort hp = ParseHostPort(listen->get<std::string>());
    if (!hp.error.empty() && !doc.HasProblemAt("/listen")) doc.Add("/listen", "the address " + hp.error);
  }
  CheckAllowlist(doc);
  CheckEgressOptions(doc);
  CheckModelKeys(doc);
  const json* keys = Member(&doc.value, "tool_keys");
  if (keys == nullptr || !keys->is_array()) return;
  std::map<std::string, size_t> first;
  for (size_t i = 0; i < keys->size(); ++i) {
    const json* name = Member(&(*keys)[i], "name");
    if (name == nullptr || !name->is_string()) continue;
    auto [it, inserted] = first.emplace(name->get<std::string>(), i);
    if (!inserted) {
      doc.Add("/tool_keys/" + std::to_string(i) + "/name",
              "duplicate key name " + json(it->first).dump() + " (also tool_keys entry " + std::to_string(it->second) + ")");
    }
  }
}

NodeConfig ToConfig(const json& v, std::string_view base_dir) {
  NodeConfig config;
  if (const json* listen = Member(&v, "listen")) {
    HostPort hp = ParseHostPort(listen->get<std::string>());
    config.listen_host = hp.host;
    config.listen_port = hp.port;
  }
  std::filesystem::path data = Member(&v, "data_dir") ? StringAt(&v, "data_dir") : "data";
  if (data.is_relative()) data = std::filesystem::path(base_dir) / data;
  config.data_dir = data.lexically_normal().string();
  if (const json* allow = Member(Member(&v, "egress"), "allow")) {
    for (const json& e : *allow) {
      AllowEntry entry;
      entry.capability = StringAt(&e, "capability");
      entry.scheme = StringAt(&e, "scheme");
      entry.host = StringAt(&e, "host");
      entry.cidr = StringAt(&e, "cidr");
      if (const json* port = Member(&e, "port")) entry.port = port->get<int>();
      entry.path_prefix = StringAt(&e, "path_prefix");
      if (const json* methods = Member(&e, "methods")) entry.methods = methods->get<std::vector<std::string>>();
      config.egress.push_back(std::move(entry));
    }
  }
  config.egress_dns_server = StringAt(Member(&v, "egress"), "dns_server");
  if (const json* redirects = Member(Member(&v, "egress"), "max_redirects")) {
    config.egress_max_redirects = redirects->get<int>();
  }
  if (const json* keys = Member(&v, "tool_keys")) {
    for (const json& k : *keys) config.tool_keys.push_back({StringAt(&k, "name"), StringAt(&k, "public_key")});
  }
  if (const json* keys = Member(&v, "model_keys")) {
    for (const json& k : *keys) {
      std::filesystem::path file = StringAt(&k, "key_file");
      if (file.is_relative()) file = std::filesystem::path(base_dir) / file;
      config.model_keys.push_back({StringAt(&k, "capability"), file.lexically_normal().string()});
    }
  }
  config.document = v;
  return config;
}

}  // namespace

Checked<NodeConfig> LoadNodeConfig(std::string_view text, std::string_view file, std::string_view base_dir) {
  Checked<NodeConfig> result;
  try {
    CheckedDocument doc = ReadAndValidate(text, file, SchemaKind::kNodeConfig);
    if (doc.readable) CheckRest(doc);
    SortProblems(doc.problems);
    result.readable = doc.readable;
    if (doc.problems.empty()) result.value = ToConfig(doc.value, base_dir);
    result.problems = std::move(doc.problems);
  } catch (const std::exception&) {
    result.value.reset();
    result.problems = {{std::string(file), 0, 0, "", "the configuration could not be checked (out of memory?)"}};
  }
  return result;
}

}  // namespace volent::manifest
