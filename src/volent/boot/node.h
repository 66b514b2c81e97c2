// The Volent node as one object: a checked configuration in, the control
// API bound, the runs resumed. `volent node`, the tests and the sealed
// image's init all start the node through Node::Start, so they start the
// same node. docs/architecture.md, docs/operator-guide.md.
//
// Start opens, in order: the data folder (created if missing; refused when
// its group or others may write it or another user owns it; locked for as
// long as the node lives, so a second node or `volent credential create`
// on it is refused: node/data_folder.h), the agent
// store (every stored manifest re-checked against this configuration; one
// that no longer passes is kept but marked rejected), the model providers'
// keys (a missing or unreadable key stops the start, not the first run), the
// egress credentials' values (egress/credentials.h; a refused file or value
// stops the start), the journal, the egress gate, the node's own key (DATA_DIR/node.key, made on
// the first start) and the sealed-tool runner, the runs (every unfinished run
// resumes), the credentials (DATA_DIR/credentials.json; at the first start
// a bootstrap admin token in DATA_DIR/bootstrap-admin.token, mode 0600),
// then binds the control API. Nothing is served until Run. A stored
// manifest must also find its sealed tools in the tool store (DATA_DIR/tools).
//
// Threading: Start, Run and the destructor on one thread; Stop and port()
// from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/ed25519.h"
#include "core/result.h"
#include "volent/attest/attestor.h"
#include "volent/attest/trust.h"
#include "volent/journal/journal.h"
#include "volent/manifest/manifest.h"

namespace volent::boot {

// The node's own signing key in its data folder (receipts of tool calls).
inline constexpr char kNodeKeyFile[] = "node.key";

struct NodeOptions {
  // Where the control API listens, overriding the configuration's listen:
  // HOST:PORT or [V6]:PORT (core/host_port.h); port 0 picks a free port.
  std::string listen;
  // The data folder, overriding the configuration's data_dir.
  std::string data_dir;
  // Warnings a person should see (a rejected stored agent, a low open-file
  // limit, a loose key file); the node goes on. Ignored if empty.
  std::function<void(const std::string&)> warn;
  // Things the operator must know at start (where the first admin token is,
  // development mode); ignored if empty.
  std::function<void(const std::string&)> notice;
};

// The first admin token, written at the node's first start (docs/operator-guide.md).
inline constexpr char kBootstrapTokenFile[] = "bootstrap-admin.token";
inline constexpr int64_t kBootstrapTokenTtlSeconds = 24 * 3600;

// The node's signing key (receipts, attestation reports): the provisioned
// attestation.signing_key, else DATA_DIR/node.key, made at the first start
// when `create` (the node) and an error otherwise (`volent attest`).
core::Result<std::shared_ptr<const core::ed25519::SecretKey>> NodeKey(const manifest::NodeConfig& config,
                                                                           const std::string& data_dir, bool create);

// What the node measures and reports of the settings that decide where its
// requests go and whom it trusts (attest/trust.h): egress.dns_server and
// max_redirects, the egress gate's TLS trust roots, the model keys'
// capabilities, the tool keys, the control API's authentication and client
// CA (read now: call it once the node's own CA exists).
attest::TrustSettings TrustSettingsFor(const manifest::NodeConfig& config, const std::string& data_dir);

// The attestation of a node with `config` and `data_dir` (attest/attestor.h):
// what Node::Start measures, and what `volent attest` reports from.
attest::AttestorOptions AttestorOptionsFor(const manifest::NodeConfig& config, const std::string& data_dir,
                                           std::shared_ptr<const core::ed25519::SecretKey> key,
                                           journal::Journal& journal);

// The refusal of development mode (control.development_no_auth) on any
// address but loopback: without authentication the API is for this machine
// only. kInvalidArgument, naming the address.
core::Status CheckDevelopmentMode(const manifest::ControlConfig& control, const std::string& host);

class Node {
 public:
  // Every part of a running node (node.cc); opened in turn by Start.
  struct Parts;

  // Errors (what failed and what to do) leave nothing running.
  static core::Result<std::unique_ptr<Node>> Start(manifest::NodeConfig config, const NodeOptions& options = {});
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // The control API's port (the free one picked for port 0) and its URL.
  int port() const;
  std::string url() const;
  // From now on SIGINT and SIGTERM stop the node (acted on once Run runs).
  void CatchSignals();
  // Serves the control API until Stop or a caught signal; then answers the
  // requests in flight, stops the runs (the calls in flight are answered and
  // journaled; unfinished runs resume at the next start) and returns.
  void Run();
  // Thread-safe; Run returns soon after.
  void Stop();

 private:
  explicit Node(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace volent::boot
