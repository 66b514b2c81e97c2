// LoadNodeConfig (manifest.h): the schema, then what it cannot say: listen
// address and port, host names and CIDR ranges label by label and bit by
// bit, unique tool key names, model keys bound to allowlisted capabilities
// (one key each), the egress DNS server as an address that is a destination,
// egress credentials declared, named, and only on entries of one host or
// address.
// Relative data_dir and key_file are resolved against
// base_dir; the key files and credential values themselves are read at node
// start, not here (model/keys.h, egress/credentials.h), so `volent check`
// works away from the node's secrets.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>

#include "core/host_port.h"
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

// A credential goes to one service: an entry naming one must name one host
// (no pattern: "*" would let a tool pick the server that receives it) or one
// address; every credential named must be declared, and every one declared
// named (else it could never be sent, a mistake worth saying).
void CheckCredentials(CheckedDocument& doc) {
  const json* egress = Member(&doc.value, "egress");
  const json* declared = Member(egress, "credentials");
  std::set<std::string> named;
  if (const json* allow = Member(egress, "allow"); allow && allow->is_array()) {
    for (size_t i = 0; i < allow->size(); ++i) {
      const std::string pointer = "/egress/allow/" + std::to_string(i) + "/credential";
      const json& entry = (*allow)[i];
      const json* credential = Member(&entry, "credential");
      if (credential == nullptr || !credential->is_string() || doc.HasProblemAt(pointer)) continue;
      const std::string name = credential->get<std::string>();
      named.insert(name);
      if (declared == nullptr || !declared->is_object() || !declared->contains(name)) {
        doc.Add(pointer, "credential " + json(name).dump() +
                             " is not declared in egress.credentials: declare it there (header and value_file or value_env)");
        continue;
      }
      const std::string host = StringAt(&entry, "host");
      const std::string cidr = StringAt(&entry, "cidr");
      if (host.find('*') != std::string::npos) {
        doc.Add(pointer, "an entry with a credential must name one host, not the pattern " + json(host).dump() +
                             " (a tool could choose the server that receives the credential)");
      } else if (!cidr.empty()) {
        const size_t slash = cidr.find('/');
        const std::string bits = slash == std::string::npos ? "" : cidr.substr(slash + 1);
        const bool v6 = cidr.find(':') != std::string::npos;
        if (bits != (v6 ? "128" : "32")) {
          doc.Add(pointer, "an entry with a credential must name one address (" + std::string(v6 ? "/128" : "/32") +
                               "), not the range " + json(cidr).dump() +
                               " (a tool could choose the server that receives the credential)");
        }
      }
    }
  }
  if (declared == nullptr || !declared->is_object()) return;
  for (const auto& [name, spec] : declared->items()) {
    if (!named.count(name)) {
      doc.Add("/egress/credentials/" + name, "credential " + json(name).dump() +
                                                 " is named by no egress.allow entry, so it could never be sent: "
                                                 "add credential: " + name + " to an entry or remove it",
              /*at_key=*/true);
    }
  }
}

void CheckEgressOptions(CheckedDocument& doc) {
  const json* server = Member(Member(&doc.value, "egress"), "dns_server");
  if (server == nullptr || !server->is_string() || doc.HasProblemAt("/egress/dns_server")) return;
  std::string why = CheckDnsServer(server->get<std::string>());
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
    auto parsed = core::ParseHostPort(listen->get<std::string>());
    if (!parsed && !doc.HasProblemAt("/listen")) doc.Add("/listen", "the address " + parsed.message());
  }
  CheckAllowlist(doc);
  CheckCredentials(doc);
  CheckEgressOptions(doc);
  CheckModelKeys(doc);
  // "production" is the operator's statement about a key they provisioned;
  // a key the node makes itself is a development key whatever is written.
  const json* attestation = Member(&doc.value, "attestation");
  if (const json* provenance = Member(attestation, "key_provenance");
      provenance && provenance->is_string() && provenance->get<std::string>() == "production" &&
      !Member(attestation, "signing_key")) {
    doc.Add("/attestation/key_provenance",
            "\"production\" needs attestation.signing_key: a key the node makes itself is dev-only");
  }
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
    // Checked (CheckRest): a configuration with a bad address never gets here.
    auto parsed = core::ParseHostPort(listen->get<std::string>());
    if (parsed) {
      config.listen_host = parsed->host;
      config.listen_port = parsed->port;
    }
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
      entry.credential = StringAt(&e, "credential");
      config.egress.push_back(std::move(entry));
    }
  }
  if (const json* credentials = Member(Member(&v, "egress"), "credentials")) {
    for (const auto& [name, c] : credentials->items()) {  // nlohmann's objects are in key order
      EgressCredential credential;
      credential.name = name;
      credential.header = StringAt(&c, "header");
      credential.prefix = StringAt(&c, "prefix");
      credential.value_env = StringAt(&c, "value_env");
      if (Member(&c, "value_file")) {
        std::filesystem::path file = StringAt(&c, "value_file");
        if (file.is_relative()) file = std::filesystem::path(base_dir) / file;
        credential.value_file = file.lexically_normal().string();
      }
      config.egress_credentials.push_back(std::move(credential));
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
  if (const json* a = Member(&v, "attestation")) {
    if (Member(a, "tpm")) config.attestation.tpm = StringAt(a, "tpm");
    if (const json* pcr = Member(a, "pcr")) config.attestation.pcr = pcr->get<int>();
    if (Member(a, "signing_key")) {
      std::filesystem::path key = StringAt(a, "signing_key");
      if (key.is_relative()) key = std::filesystem::path(base_dir) / key;
      config.attestation.signing_key = key.lexically_normal().string();
    }
    if (Member(a, "key_provenance")) config.attestation.key_provenance = StringAt(a, "key_provenance");
  }
  if (const json* c = Member(&v, "control")) {
    const std::string auth = Member(c, "auth") ? StringAt(c, "auth") : "tokens";
    config.control.tokens = auth != "mtls";
    config.control.mtls = auth != "tokens";
    if (const json* dev = Member(c, "development_no_auth")) config.control.development_no_auth = dev->get<bool>();
    const json* tls = Member(c, "tls");
    config.control.tls = tls != nullptr || config.control.mtls;
    auto path = [&](const char* name) -> std::string {
      if (!Member(tls, name)) return "";
      std::filesystem::path file = StringAt(tls, name);
      if (file.is_relative()) file = std::filesystem::path(base_dir) / file;
      return file.lexically_normal().string();
    };
    config.control.tls_certificate = path("certificate");
    config.control.tls_key = path("key");
    config.control.tls_client_ca = path("client_ca");
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
