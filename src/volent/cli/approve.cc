// volent approve --node URL ID [--deny] [--reason TEXT] [--key FILE] [--token-file FILE]
//                [--ca FILE] [--cert FILE --cert-key FILE]
// volent approve --verify --data-dir DIR ID [--key FILE.pub]
//
// Decides a pending approval on a running node, signed with the approver's
// own key when --key names one (control/approval_signature.h); or checks,
// off the node, the signature journaled with a decision against the
// approver's public key. The token comes from --token-file, else the file
// $VOLENT_TOKEN_FILE names, else $VOLENT_TOKEN: never from the command line,
// where other users of the machine can read it. docs/cli.md,
// docs/auditor-guide.md.
//
// The node is reached through the egress gate (the one way out of any
// volent process, docs/egress.md), with an allowlist of exactly the node's
// address and the approvals path. A node with TLS (https://) is checked
// against --ca; --cert and --cert-key present a client certificate (mutual
// TLS), which stands in for the token.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "ampoule/receipt/base64.h"
#include "ampoule/receipt/key_file.h"
#include "core/file_read.h"
#include "core/host_port.h"
#include "volent/cli/commands.h"
#include "volent/control/approval_signature.h"
#include "volent/egress/gate.h"
#include "volent/journal/journal.h"

namespace volent::cli {
namespace {

using nlohmann::json;

constexpr char kUsage[] =
    "usage: volent approve --node URL ID [--deny] [--reason TEXT] [--key FILE] [--token-file FILE]\n"
    "                      [--ca FILE] [--cert FILE --cert-key FILE]\n"
    "       volent approve --verify --data-dir DIR ID [--key FILE.pub]\n"
    "\n"
    "  --node URL         the node's control API, http://HOST:PORT or https://HOST:PORT\n"
    "  ID                 the approval's id (GET /v1/approvals)\n"
    "  --deny             deny the call (default: approve it)\n"
    "  --reason TEXT      why, for the record\n"
    "  --key FILE         the approver's Ed25519 key (ampoule keygen): the decision is signed\n"
    "                     over the call's digest; with --verify, the approver's public key\n"
    "  --token-file FILE  the bearer token (else $VOLENT_TOKEN_FILE names the file, else\n"
    "                     $VOLENT_TOKEN holds it); never given on the command line\n"
    "  --ca FILE          https: the CA the node's certificate must chain to (its DATA_DIR/tls/ca.crt);\n"
    "                     default: the system's trusted CAs\n"
    "  --cert FILE        https: a client certificate (volent credential certificate), with\n"
    "  --cert-key FILE    its key; then no token is needed\n"
    "  --verify           check, off the node, the signature journaled with approval ID in the\n"
    "                     journal in DIR (a copy of the node's data folder will do):\n"
    "                     VERIFIED (exit 0) or FAILED (exit 1)\n";

struct Options {
  std::string node, id, reason, key, token_file, data_dir, ca, cert, cert_key;
  bool deny = false;
  bool verify = false;
};

int Usage(const std::string& why) {
  std::fprintf(stderr, "volent approve: %s\n\n%s", why.c_str(), kUsage);
  return 2;
}

// 0 to go on, -1 for --help, else the exit code.
int ParseArgs(const Args& args, Options& o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    }
    if (a == "--deny") {
      o.deny = true;
      continue;
    }
    if (a == "--verify") {
      o.verify = true;
      continue;
    }
    if (a == "--token") return Usage("a token is never taken on the command line: use --token-file or VOLENT_TOKEN");
    std::string* target = a == "--node"         ? &o.node
                          : a == "--reason"     ? &o.reason
                          : a == "--key"        ? &o.key
                          : a == "--token-file" ? &o.token_file
                          : a == "--data-dir"   ? &o.data_dir
                          : a == "--ca"         ? &o.ca
                          : a == "--cert"       ? &o.cert
                          : a == "--cert-key"   ? &o.cert_key
                                                : nullptr;
    if (target) {
      if (i + 1 >= args.size()) return Usage(a + " needs a value");
      *target = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option '" + a + "'");
    } else if (o.id.empty()) {
      o.id = a;
    } else {
      return Usage("one approval id only");
    }
  }
  if (o.id.empty() || o.id.size() > 20 || o.id.find_first_not_of("0123456789") != std::string::npos) {
    return Usage("an approval id (a decimal number) is required");
  }
  if (o.verify ? o.data_dir.empty() : o.node.empty()) {
    return Usage(o.verify ? "--verify needs --data-dir" : "--node is required");
  }
  if (o.cert.empty() != o.cert_key.empty()) return Usage("--cert and --cert-key go together");
  return 0;
}

// The token: --token-file, $VOLENT_TOKEN_FILE, $VOLENT_TOKEN; or "" after saying why not.
std::string ReadToken(const Options& o) {
  std::string file = o.token_file;
  if (file.empty()) {
    if (const char* f = std::getenv("VOLENT_TOKEN_FILE"); f && *f) file = f;
  }
  std::string token;
  if (!file.empty()) {
    auto text = ampoule::core::ReadFileCapped(file, 4096);
    if (!text) {
      std::fprintf(stderr, "volent approve: the token file: %s\n", text.message().c_str());
      return "";
    }
    token = *text;
  } else if (const char* t = std::getenv("VOLENT_TOKEN"); t) {
    token = t;
  }
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) {
    std::fprintf(stderr, "volent approve: no token: give --token-file FILE, or set VOLENT_TOKEN_FILE or VOLENT_TOKEN\n");
  }
  return token;
}

// The node's answer to one request, or nothing after saying why.
std::optional<std::pair<int, json>> Call(const egress::Gate& gate, const std::string& node, const std::string& token,
                                         const std::string& method, const std::string& path, const std::string& body) {
  egress::HttpRequest request;
  request.method = method;
  request.url = node + path;
  request.headers = {{"User-Agent", "volent-approve"}};
  if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
  if (!body.empty()) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body;
  }
  request.max_redirects = 0;
  egress::SendResult sent = gate.Send("control-api", request);
  if (sent.outcome != egress::Outcome::kAnswered) {
    std::fprintf(stderr, "volent approve: %s %s: %s\n", method.c_str(), request.url.c_str(), sent.reason.c_str());
    return std::nullopt;
  }
  json answer = json::parse(sent.response.body, nullptr, /*allow_exceptions=*/false);
  return std::make_pair(sent.response.status, std::move(answer));
}

std::string Detail(const json& problem) {
  return problem.is_object() && problem.contains("detail") && problem["detail"].is_string()
             ? problem["detail"].get<std::string>()
             : "(no detail)";
}

int Decide(const Options& o) {
  std::string node = o.node;
  while (!node.empty() && node.back() == '/') node.pop_back();
  const bool https = node.rfind("https://", 0) == 0;
  if (!https && node.rfind("http://", 0) != 0) return Usage("--node must be http://HOST:PORT or https://HOST:PORT");
  if (!https && (!o.ca.empty() || !o.cert.empty())) return Usage("--ca and --cert need an https:// node");
  auto where = ampoule::core::ParseHostPort(node.substr(https ? 8 : 7), ampoule::core::PortRule::kRequired);
  if (!where) return Usage("--node " + o.node + ": " + where.message());
  std::optional<ampoule::receipt::SecretKey> key;
  if (!o.key.empty()) {
    auto read = ampoule::receipt::ReadSecretKeyFile(o.key);
    if (!read) return Usage("--key " + o.key + ": " + read.message());
    key.emplace(std::move(*read));
  }
  // With a client certificate the token is optional (it is sent if given).
  const bool has_token = !o.token_file.empty() || std::getenv("VOLENT_TOKEN_FILE") || std::getenv("VOLENT_TOKEN");
  const std::string token = o.cert.empty() || has_token ? ReadToken(o) : "";
  if (token.empty() && o.cert.empty()) return 2;
  const bool v6 = where->host.find(':') != std::string::npos;
  manifest::AllowEntry entry{"control-api", https ? "https" : "http", "", where->host + (v6 ? "/128" : "/32"),
                             where->port, "/v1/approvals/", {"GET", "POST"}};
  egress::GateOptions gate_options;
  gate_options.io_threads = 1;
  if (https && (!o.ca.empty() || !o.cert.empty())) {
    namespace ssl = boost::asio::ssl;
    auto tls = std::make_shared<ssl::context>(ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(tls->native_handle(), TLS1_2_VERSION);
    boost::system::error_code ec;
    if (o.ca.empty()) {
      tls->set_default_verify_paths(ec);
    } else {
      tls->load_verify_file(o.ca, ec);
    }
    if (ec) return Usage("--ca " + o.ca + ": " + ec.message());
    tls->set_verify_mode(ssl::verify_peer, ec);
    if (!o.cert.empty()) {
      tls->use_certificate_chain_file(o.cert, ec);
      if (ec) return Usage("--cert " + o.cert + ": " + ec.message());
      tls->use_private_key_file(o.cert_key, ssl::context::pem, ec);
      if (ec) return Usage("--cert-key " + o.cert_key + ": " + ec.message());
    }
    gate_options.tls_client = std::move(tls);
  }
  egress::Gate gate({entry}, gate_options);

  auto approval = Call(gate, node, token, "GET", "/v1/approvals/" + o.id, "");
  if (!approval) return 3;
  if (approval->first != 200) {
    std::fprintf(stderr, "volent approve: approval %s: HTTP %d: %s\n", o.id.c_str(), approval->first,
                 Detail(approval->second).c_str());
    return 1;
  }
  const std::string digest = approval->second.value("call_digest", "");
  json body = json::object();
  if (!o.reason.empty()) body["reason"] = o.reason;
  if (key) body["signature"] = control::SignApproval(*key, !o.deny, digest);
  auto decided = Call(gate, node, token, "POST", "/v1/approvals/" + o.id + (o.deny ? "/deny" : "/approve"), body.dump());
  if (!decided) return 3;
  if (decided->first != 200) {
    std::fprintf(stderr, "volent approve: approval %s: HTTP %d: %s\n", o.id.c_str(), decided->first,
                 Detail(decided->second).c_str());
    return 1;
  }
  std::printf("%s: approval %s (%s of %s) by %s%s\n", o.deny ? "denied" : "approved", o.id.c_str(),
              decided->second.value("tool", "").c_str(), digest.c_str(), decided->second.value("decided_by", "").c_str(),
              key ? (", signed by key " + key->public_key().KeyId().substr(0, 16)).c_str() : "");
  return 0;
}

int Failed(const std::string& why) {
  std::printf("FAILED: %s\n", why.c_str());
  return 1;
}

int Verify(const Options& o) {
  std::string expected_key;
  if (!o.key.empty()) {
    auto pub = ampoule::receipt::ReadPublicKeyFile(o.key);
    if (!pub) return Usage("--key " + o.key + ": " + pub.message());
    expected_key = ampoule::receipt::Base64Encode(pub->raw());
  }
  journal::OpenOptions options;
  options.create = false;
  auto opened = journal::Journal::Open(o.data_dir, options);
  if (!opened) {
    std::fprintf(stderr, "volent approve: %s\n", opened.message().c_str());
    return 2;
  }
  journal::Journal& j = **opened;
  const uint64_t seq = std::stoull(o.id);
  auto read = j.Read(seq - 1, 1);
  if (!read || read->empty() || read->front().seq != seq) return Failed("the journal has no entry " + o.id);
  const journal::Entry& requested = read->front();
  if (requested.kind != journal::EntryKind::kApprovalRequested) {
    return Failed("entry " + o.id + " is not an approval-requested entry");
  }
  // The call as the journal holds it now, hashed here: an altered tool,
  // argument or position gives another digest than the one signed.
  const std::string digest = "sha256:" + journal::EntryHash(requested);
  auto decided = j.Get(journal::EffectKey{requested.agent, requested.run, requested.step},
                       journal::EntryKind::kApprovalDecided);
  if (!decided || !*decided) return Failed("approval " + o.id + " has no decision in the journal");
  json payload = json::parse((*decided)->payload, nullptr, false);
  if (!payload.is_object() || !payload.contains("signature")) {
    return Failed("the decision of approval " + o.id + " carries no signature (decided by " +
                  payload.value("by", std::string("?")) + ")");
  }
  const bool approve = payload.value("decision", "") == "approved";
  auto checked = control::CheckApprovalSignature(payload["signature"], approve, digest, expected_key);
  if (!checked.ok()) return Failed(checked.message());
  std::printf("VERIFIED: approval %s %s by %s, signed by key %s%s over call %s\n", o.id.c_str(),
              approve ? "approved" : "denied", payload.value("by", std::string("?")).c_str(),
              payload["signature"].value("public_key", "").c_str(),
              expected_key.empty() ? " (the key the journal names: give --key to check it is the approver's)" : "",
              digest.c_str());
  return 0;
}

}  // namespace

int ApproveCommand(const Args& args) {
  Options o;
  if (int rc = ParseArgs(args, o)) return rc < 0 ? 0 : rc;
  return o.verify ? Verify(o) : Decide(o);
}

}  // namespace volent::cli
