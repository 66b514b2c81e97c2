// What an operator writes for a Volent node: agent manifests (*.agent.yaml)
// and the node's own configuration (volent.yaml). docs/manifests.md.
//
// Both are YAML (JSON is accepted too: it is parsed by the same YAML reader,
// so positions are known either way) and both are checked against a JSON
// Schema (draft-07) kept in schemas/ and built into the binary. Unknown
// fields, duplicate keys and wrong types are errors; every error names the
// file, the line and column (1-based) and the JSON Pointer of the field, and
// says what was expected. All errors of a document are reported, not just
// the first.
//
// Thread-safe: no shared mutable state. Never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace volent::manifest {

// One thing wrong with a document.
struct Problem {
  std::string file;     // as given by the caller, e.g. "agents/refund.agent.yaml"
  int line = 0;         // 1-based; 0 when unknown
  int column = 0;       // 1-based; 0 when unknown
  std::string pointer;  // JSON Pointer (RFC 6901) of the field, "" for the whole document
  std::string message;  // what is wrong and what was expected
};
using Problems = std::vector<Problem>;

// "FILE:LINE:COLUMN: POINTER: MESSAGE" (the form `volent check` prints).
std::string FormatProblem(const Problem& problem);

// A value, or every problem found.
template <class T>
struct Checked {
  std::optional<T> value;
  Problems problems;
  // False when the text could not be read at all (not well-formed YAML or
  // JSON, not UTF-8, over a size or depth limit): the problems say where.
  // True when it was read and the problems, if any, are about its content.
  bool readable = true;
  bool ok() const { return value.has_value(); }
};

// --- The node configuration (volent.yaml) -----------------------------------

// One entry of the egress allowlist. A request is allowed for `capability`
// if it matches scheme, port, optional path prefix and methods, and either
// `host` (an exact name or a pattern "*.example.com" / "*") or `cidr` (an
// address range named explicitly, the only way to reach internal addresses).
// With `credential`, the egress gate adds that credential's header to every
// request this entry allows (egress/credentials.h); only entries naming one
// host or one address may carry one.
struct AllowEntry {
  std::string capability;
  std::string scheme;                // "https" or "http"
  std::string host;                  // exactly one of host and cidr is set
  std::string cidr;
  int port = 0;                      // 0: the scheme's default port
  std::string path_prefix;           // "" allows every path
  std::vector<std::string> methods;  // empty allows every method
  // The name of an egress.credentials entry, "" for none. (An initializer,
  // so entries written as {capability, scheme, ...} need not name it.)
  std::string credential = {};
};

// A secret the egress gate adds to requests as a header (volent.yaml
// egress.credentials), so that the tools making them never hold it. The
// value comes from `value_file` or the environment variable `value_env`
// (exactly one), read once at node start (egress/credentials.h); the
// configuration holds only where it is.
struct EgressCredential {
  std::string name;        // the key in egress.credentials
  std::string header;      // e.g. "Authorization"
  std::string prefix;      // written before the value, e.g. "Bearer "
  std::string value_file;  // resolved against the config file's folder when relative; "" with value_env
  std::string value_env;   // "" with value_file
};

struct TrustedToolKey {
  std::string name;
  std::string public_key;  // Ed25519, base64 of the 32 raw bytes
};

// An API key for model calls, bound to the egress capability it is sent
// under and kept in a file of its own (never inline in volent.yaml). The
// node reads the file at start (model/keys.h).
struct ModelKeyFile {
  std::string capability;
  std::string key_file;  // resolved against the config file's folder when relative
};

// volent.yaml `attestation` (docs/attestation.md).
struct AttestationConfig {
  std::string tpm = "default";               // "none", "default", "device:/dev/tpmrmN", "swtpm:host=H,port=P"
  int pcr = 15;                               // the PCR the node extends with its own measurements
  std::string signing_key;                    // a provisioned key file; "" for DATA_DIR/node.key
  std::string key_provenance = "dev-only";    // "dev-only" or "production" (only with signing_key)
};

// control: who may call the control API (docs/decisions/0040-control-api-authentication.md).
struct ControlConfig {
  bool tokens = true;                 // auth "tokens" or "tokens+mtls": bearer tokens accepted
  bool mtls = false;                  // auth "mtls" or "tokens+mtls": client certificates accepted
  bool development_no_auth = false;   // no credentials at all (loopback only)
  bool tls = false;                   // TLS on: control.tls present, or mtls
  std::string tls_certificate;        // "" : the node's own, in DATA_DIR/tls
  std::string tls_key;
  std::string tls_client_ca;          // "" : the node's own CA
};

struct NodeConfig {
  std::string listen_host = "127.0.0.1";
  int listen_port = 8470;
  std::string data_dir;  // resolved against the config file's folder when relative
  std::vector<AllowEntry> egress;
  std::string egress_dns_server;  // egress.dns_server: "" for the system resolver, else "IP" or "IP:PORT"
  int egress_max_redirects = 5;   // egress.max_redirects (0..20)
  std::vector<EgressCredential> egress_credentials;  // egress.credentials, in name order
  std::vector<TrustedToolKey> tool_keys;
  std::vector<ModelKeyFile> model_keys;
  AttestationConfig attestation;
  ControlConfig control;
  nlohmann::json document;  // the whole configuration as JSON
};

// Parses and checks a volent.yaml. `file` names it in problems; relative
// paths in it are resolved against `base_dir`.
Checked<NodeConfig> LoadNodeConfig(std::string_view text, std::string_view file,
                                   std::string_view base_dir = ".");

// --- Agent manifests (*.agent.yaml) -------------------------------------------

// A sealed tool runs on Ampoule's kernel from the node's tool store
// (docs/tools.md): kinds "wasm" (a WASI module), "python" and "js" (a
// program for the kernel's runtimes). Every other kind ("http") is a request.
bool IsSealedToolKind(std::string_view kind);

struct ToolSpec {
  std::string name;
  std::string kind;        // "http", or a sealed kind: "wasm", "python", "js"
  std::string capability;  // "" when the tool needs no network
  std::string component;   // sealed tools: "sha256:HEX" as written; "" for others
};

struct Agent {
  std::string name;            // metadata.name
  std::string model_provider;  // "anthropic", "openai" or "openai-compatible"
  std::string model_name;
  std::vector<ToolSpec> tools;
  std::vector<std::string> approval_required_for;  // tool names
  nlohmann::json document;  // the whole manifest as JSON (what the node stores and serves)
};

// Parses and checks one manifest. With `config`, every tool capability must
// map to an entry of its egress allowlist (else a problem at that tool's
// capability field); without, that check is skipped.
Checked<Agent> LoadAgent(std::string_view text, std::string_view file,
                         const NodeConfig* config = nullptr);

// The top-level "kind" of a document ("Agent", "NodeConfig", ...), or ""
// when it cannot be read or has none. For tools that take either (volent
// check); the loaders check the kind themselves.
std::string DocumentKind(std::string_view text);

// The schemas as published (schemas/agent.schema.json, volent.schema.json).
std::string_view AgentSchemaText();
std::string_view NodeConfigSchemaText();

}  // namespace volent::manifest
