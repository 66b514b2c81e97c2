// The node's trust configuration (docs/attestation.md, "What the node
// measures"): every setting that decides where a request goes or whom the
// node trusts, outside the allowlist (measured on its own), as one JSON
// document that the node measures (node-trust event, node_pcr.h) and
// reports, and that a policy pins (egress.dns_server, trust.sha256).
//
//   {"format": 1,
//    "egress": {"dns_server": "IP:PORT" or "system", "max_redirects": N,
//               "proxy": "none",
//               "tls_roots": {"file": PATH, "file_sha256": HEX or null,
//                             "dir": PATH, "dir_sha256": HEX or null}},
//    "model_keys": [CAPABILITY, ...],
//    "tool_keys": [{"name", "public_key"}, ...],
//    "control": {"auth": "tokens" | "mtls" | "tokens+mtls" | "development_no_auth",
//                "client_ca": PATH or null, "client_ca_sha256": HEX or null}}
//
// One document rather than one event per setting: the start's sequence of
// events stays fixed while settings are added, a policy pins the whole by
// one digest, and each setting is still read by name from the report.
//
// Thread-safe: no state.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace volent::attest {

inline constexpr int kTrustFormat = 1;

// The trust roots the egress gate's TLS client loads (OpenSSL's default
// verify paths, as SSL_CERT_FILE and SSL_CERT_DIR may move them), each
// digested as found at start: the file's bytes; the folder's entries, sorted
// by name, as "NAME sha256\n" lines over the files they lead to.
struct TlsRoots {
  std::string file, file_sha256;  // "" digest: absent or unreadable
  std::string dir, dir_sha256;
};
TlsRoots DefaultTlsRoots();
// The same for a given file and folder (tests).
TlsRoots ReadTlsRoots(const std::string& file, const std::string& dir);

struct TrustSettings {
  std::string dns_server;  // egress.dns_server as written; "" the system resolver
  int max_redirects = 5;
  TlsRoots tls_roots;
  std::vector<std::string> model_key_capabilities;
  std::vector<std::pair<std::string, std::string>> tool_keys;  // name, base64 public key
  std::string control_auth;        // tokens, mtls, tokens+mtls or development_no_auth
  std::string client_ca;           // "" when client certificates are not accepted
  std::string client_ca_sha256;    // "" when not read
};

// "IP:PORT" with the port 53 made explicit ("192.0.2.53" -> "192.0.2.53:53",
// "[2001:db8::53]" -> "[2001:db8::53]:53"), or "system" for "". What the
// report says and a policy's egress.dns_server is compared with.
std::string DnsServerName(const std::string& dns_server);

nlohmann::json TrustDocument(const TrustSettings& settings);

}  // namespace volent::attest
