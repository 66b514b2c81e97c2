// volent approve --node URL ID [--deny] [--reason TEXT] [--key FILE] [--token-file FILE]
//                [--ca FILE] [--cert FILE --cert-key FILE]
// volent approve --verify --data-dir DIR ID [--key FILE.pub]
//
// Decides a pending approval on a running node, signed with the approver's
// own key when --key names one (control/approval_signature.h: the statement
// names the deciding token); or checks, off the node, the signature
// journaled with a decision: that it names the credential the node
// recorded as deciding, is by the approval key the journal says was
// registered for that credential, and, with --key, by the approver's own
// public key. The token comes from --token-file, else the file
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
#include <optional>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "ampoule/receipt/key_file.h"
#include "core/base64.h"
#include "core/file_read.h"
#include "core/host_port.h"
#include "volent/access/approval_signature.h"
#include "volent/cli/commands.h"
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
    "                     journal in DIR (a copy of the node's data folder will do): that it\n"
    "                     names the credential that decided and is by that credential's\n"
    "                     registered approval key (and --key's): VERIFIED, naming who\n"
    "                     decided (exit 0), or FAILED (exit 1)\n";

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
    auto text = core::ReadFileCapped(file, 4096);
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

// The problem's detail, and each field error's (a 422 says what is wrong
// with the signature there).
std::string Detail(const json& problem) {
  std::string out = problem.is_object() && problem.contains("detail") && problem["detail"].is_string()
                        ? problem["detail"].get<std::string>()
                        : "(no detail)";
  if (problem.is_object() && problem.contains("errors") && problem["errors"].is_array()) {
    for (const json& e : problem["errors"]) {
      if (e.is_object()) out += "; " + e.value("pointer", std::string()) + ": " + e.value("detail", std::string());
    }
  }
  return out;
}

int Decide(const Options& o) {
  std::string node = o.node;
  while (!node.empty() && node.back() == '/') node.pop_back();
  const bool https = node.rfind("https://", 0) == 0;
  if (!https && node.rfind("http://", 0) != 0) return Usage("--node must be http://HOST:PORT or https://HOST:PORT");
  if (!https && (!o.ca.empty() || !o.cert.empty())) return Usage("--ca and --cert need an https:// node");
  auto where = core::ParseHostPort(node.substr(https ? 8 : 7), core::PortRule::kRequired);
  if (!where) return Usage("--node " + o.node + ": " + where.message());
  std::optional<core::ed25519::SecretKey> key;
  if (!o.key.empty()) {
    auto read = ampoule::receipt::ReadSecretKeyFile(o.key);
    if (!read) return Usage("--key " + o.key + ": " + read.message());
    key.emplace(std::move(*read));
  }
  // With a client certificate the token is optional (it is sent if given).
  const bool has_token = !o.token_file.empty() || std::getenv("VOLENT_TOKEN_FILE") || std::getenv("VOLENT_TOKEN");
  const std::string token = o.cert.empty() || has_token ? ReadToken(o) : "";
  if (token.empty() && o.cert.empty()) return 2;
  // The signed statement names the deciding credential: the token (which
  // decides when both are sent). A certificate has no registered approval
  // key, so the node would refuse a signature with it.
  std::string decider;
  if (key) {
    if (token.empty()) {
      return Usage("--key signs for a token's registered approval key: give the token (--token-file); a client "
                   "certificate has no approval key of its own");
    }
    const std::string id = token.substr(0, 4) == "vlt_" && token.size() > 21 && token[20] == '_' ? token.substr(4, 16) : "";
    if (id.size() != 16 || id.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return Usage("the token is not of the form vlt_<id>_<secret>, so the signature cannot name it");
    }
    decider = "token:" + id;
  }
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
  if (key) body["signature"] = access::SignApproval(*key, !o.deny, digest, decider);
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

// The approval key the journal says was registered for `decider` at its
// creation (a credential-created entry), and that entry's seq; nothing
// when the journal holds no creation of it.
std::optional<std::pair<std::string, uint64_t>> RegisteredKey(journal::Journal& j, const std::string& decider) {
  if (decider.rfind("token:", 0) != 0) return std::nullopt;
  const std::string id = decider.substr(6);
  for (uint64_t after = 0;;) {
    auto page = j.Read(after, 1000);
    if (!page || page->empty()) return std::nullopt;
    for (const journal::Entry& e : *page) {
      after = e.seq;
      if (e.kind != journal::EntryKind::kCredentialCreated) continue;
      json p = json::parse(e.payload, nullptr, false);
      if (!p.is_object() || p.value("id", "") != id) continue;
      const json& key = p.contains("approval_key") ? p["approval_key"] : json();
      return std::make_pair(key.is_string() ? key.get<std::string>() : std::string(), e.seq);
    }
  }
}

int Verify(const Options& o) {
  std::string given_key;
  if (!o.key.empty()) {
    auto pub = ampoule::receipt::ReadPublicKeyFile(o.key);
    if (!pub) return Usage("--key " + o.key + ": " + pub.message());
    given_key = core::Base64Encode(pub->raw());
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
  // Who decided, as the node authenticated them: the signed statement must
  // name that credential, and the key must be the one registered for it.
  const std::string decider = access::DeciderOf(payload.contains("identity") ? payload["identity"] : json());
  if (decider.empty()) {
    return Failed("the decision of approval " + o.id + " names no deciding credential (decided by " +
                  payload.value("by", std::string("?")) + "), so no signature can be tied to one");
  }
  auto registered = RegisteredKey(j, decider);
  if (registered && registered->first.empty()) {
    return Failed(decider + " was made without an approval key (journal entry " + std::to_string(registered->second) +
                  "), so no signature speaks for it");
  }
  if (registered && !given_key.empty() && registered->first != given_key) {
    return Failed("the key " + o.key + " is not the approval key registered for " + decider + " (journal entry " +
                  std::to_string(registered->second) + " registered " + registered->first + ")");
  }
  const std::string expected_key = !given_key.empty() ? given_key : registered ? registered->first : "";
  auto checked = access::CheckApprovalSignature(payload["signature"], approve, digest, decider, expected_key);
  if (!checked.ok()) return Failed(checked.message());
  std::string how;
  how = registered ? ", the approval key registered for it (journal entry " + std::to_string(registered->second) + ")"
                   : ", though this journal holds no creation of " + decider + " to say which key it registered";
  if (given_key.empty()) how += " (give --key with the approver's public key, obtained from them, to check it is theirs)";
  std::printf("VERIFIED: approval %s %s by %s (%s): the signed statement names %s, signed by key %s%s, over call %s\n",
              o.id.c_str(), approve ? "approved" : "denied", decider.c_str(),
              payload.value("by", std::string("?")).c_str(), decider.c_str(),
              payload["signature"].value("public_key", "").c_str(), how.c_str(), digest.c_str());
  return 0;
}

}  // namespace

int ApproveCommand(const Args& args) {
  Options o;
  if (int rc = ParseArgs(args, o)) return rc < 0 ? 0 : rc;
  return o.verify ? Verify(o) : Decide(o);
}

}  // namespace volent::cli
