// Node::Start and the node's lifetime (node.h).
#include "volent/boot/node.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "ampoule/kernel/default_path.h"
#include "ampoule/receipt/key_file.h"
#include "core/crash_point.h"
#include "core/errno_text.h"
#include "core/file_read.h"
#include "core/file_write.h"
#include "core/host_port.h"
#include "core/http/descriptor_limit.h"
#include "core/sha256.h"
#include "volent/access/credentials.h"
#include "volent/access/tls_certificates.h"
#include "volent/agent/crash_points.h"
#include "volent/agent/delays.h"
#include "volent/agent/denial_journal.h"
#include "volent/agent/model_step.h"
#include "volent/agent/run_manager.h"
#include "volent/agent/tool_call.h"
#include "volent/attest/attestor.h"
#include "volent/control/api.h"
#include "volent/control/auth.h"
#include "volent/control/credential_journal.h"
#include "volent/control/http_server.h"
#include "volent/control/metrics.h"
#include "volent/control/tls_context.h"
#include "volent/egress/credentials.h"
#include "volent/egress/gate.h"
#include "volent/init/boot_record.h"
#include "volent/journal/journal.h"
#include "volent/model/client.h"
#include "volent/model/keys.h"
#include "volent/sealed/sealed_tool.h"
#include "volent/store/agent_store.h"
#include "volent/store/data_folder.h"
#include "volent/tools/tool_store.h"

namespace volent::boot {

using core::Error;
using core::ErrorKind;
using core::Result;

// Declared in the order they are opened, so they are destroyed in the
// reverse: the server, then the runs (whose Stop waits for the calls in
// flight) before the delays, the client and the gate they use, and the
// journal and store last.
struct Node::Parts {
  // Held while the node runs; released last (data_folder.h).
  std::unique_ptr<core::FolderLock> data_lock;
  manifest::NodeConfig config;
  std::vector<core::ed25519::PublicKey> tool_keys;  // volent.yaml tool_keys, decoded
  std::unique_ptr<tools::ToolStore> tool_store;
  std::unique_ptr<store::AgentStore> store;
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<egress::Gate> gate;
  std::unique_ptr<model::Client> models;
  agent::Delays delays;
  std::unique_ptr<sealed::SealedToolRunner> sealed_tools;
  std::unique_ptr<attest::Attestor> attestor;
  std::unique_ptr<agent::RunManager> runs;
  control::Metrics metrics;
  std::unique_ptr<access::CredentialStore> credentials;  // null in development mode
  std::unique_ptr<control::Authenticator> auth;
  std::unique_ptr<control::ControlApi> api;
  std::unique_ptr<control::HttpServer> server;
  std::string host;  // as listened on, without brackets
  bool tls = false;  // the control API speaks TLS (control.tls)
};

namespace {

// Model and tool calls in flight each hold a socket (docs/models.md: 1,500
// model calls at once): the soft open-file limit, often 1,024, is raised to
// the hard one. Below this, the node says so.
constexpr size_t kWantedDescriptors = 4096;

void RaiseDescriptorLimit(const NodeOptions& options) {
  const size_t limit = core::httpd::RaiseDescriptorLimit();
  if (limit != 0 && limit < kWantedDescriptors && options.warn) {
    options.warn("at most " + std::to_string(limit) +
                 " open files (RLIMIT_NOFILE); calls in flight each need one: raise the hard limit (ulimit -Hn, "
                 "LimitNOFILE=) to at least " + std::to_string(kWantedDescriptors));
  }
}

// Creates `dir` and its parents as needed.
bool MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      std::string part = dir.substr(0, i);
      if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  struct stat st {};
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Error Failed(std::string message) { return Error{std::move(message), ErrorKind::kUnavailable}; }

// Whether `host` (as listened on, without brackets) is a loopback address.
bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// When no admin token is active (the first start; or every admin token
// expired or was revoked, and the operator restarts the node to get back
// in): an admin token for the operator, in a file only the node's user can
// read (replacing an older one), journaled like any other credential.
core::Status Bootstrap(access::CredentialStore& credentials, journal::Journal& journal,
                          const std::string& data_dir, const NodeOptions& options) {
  access::NewCredential request;
  request.name = "bootstrap admin";
  request.roles = {access::Role::kAdmin};
  request.ttl_seconds = kBootstrapTokenTtlSeconds;
  request.created_by = "the node (no admin token was active at start)";
  auto made = control::CreateJournaled(credentials, journal, request,
                                       {{"kind", "node"}, {"reason", "no admin token was active at start"}});
  if (!made) return made.error();
  const std::string path = data_dir + "/" + kBootstrapTokenFile;
  CORE_RETURN_IF_ERROR(core::WriteFileAtomically(path, made->second + "\n", 0600));
  if (options.notice) {
    options.notice("no admin token was active: a new one, valid for 24 hours, is in " + path +
                   " (mode 0600); use it to make your own credentials (docs/operator-guide.md), then delete the file");
  }
  return core::Status::Ok();
}

}  // namespace

// DATA_DIR/node.key is made on the first start, mode 0600, with node.key.pub
// beside it for auditors (docs/tools.md).
Result<std::shared_ptr<const core::ed25519::SecretKey>> NodeKey(const manifest::NodeConfig& config,
                                                                   const std::string& data_dir, bool create) {
  if (!config.attestation.signing_key.empty()) {
    auto key = ampoule::receipt::ReadSecretKeyFile(config.attestation.signing_key);
    if (!key) return Failed("attestation.signing_key " + config.attestation.signing_key + ": " + key.message());
    return std::make_shared<const core::ed25519::SecretKey>(std::move(*key));
  }
  const std::string path = data_dir + "/" + kNodeKeyFile;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Failed(core::Errno("cannot read " + path).message);
    if (!create) return Failed("no node key in " + data_dir + " (" + kNodeKeyFile + "): has the node started there?");
    auto written = ampoule::receipt::WriteKeyPair(path, core::ed25519::SecretKey::Generate());
    if (!written.ok()) return Failed("cannot create the node's key " + path + ": " + written.message());
  }
  auto key = ampoule::receipt::ReadSecretKeyFile(path);
  if (!key) return Failed("the node's key " + path + ": " + key.message());
  return std::make_shared<const core::ed25519::SecretKey>(std::move(*key));
}

attest::TrustSettings TrustSettingsFor(const manifest::NodeConfig& config, const std::string& data_dir) {
  attest::TrustSettings t;
  t.dns_server = config.egress_dns_server;
  t.max_redirects = config.egress_max_redirects;
  t.tls_roots = attest::DefaultTlsRoots();  // what the egress gate's TLS client loads (egress/tls_client.cc)
  for (const manifest::ModelKeyFile& key : config.model_keys) t.model_key_capabilities.push_back(key.capability);
  for (const manifest::TrustedToolKey& key : config.tool_keys) t.tool_keys.emplace_back(key.name, key.public_key);
  const manifest::ControlConfig& control = config.control;
  t.control_auth = control.development_no_auth    ? "development_no_auth"
                   : control.tokens && control.mtls ? "tokens+mtls"
                   : control.mtls                   ? "mtls"
                                                    : "tokens";
  if (control.mtls && !control.development_no_auth) {
    // As control/tls_context.cc picks it: the operator's, else the node's own.
    t.client_ca = !control.tls_client_ca.empty() ? control.tls_client_ca
                                                 : access::NodeTlsPathsOf(data_dir).ca_certificate;
    auto bytes = core::ReadFileCapped(t.client_ca, size_t{16} << 20);
    if (bytes) t.client_ca_sha256 = core::Sha256Hex(*bytes);
  }
  return t;
}

attest::AttestorOptions AttestorOptionsFor(const manifest::NodeConfig& config, const std::string& data_dir,
                                           std::shared_ptr<const core::ed25519::SecretKey> key,
                                           journal::Journal& journal) {
  attest::AttestorOptions o;
  o.tpm = config.attestation.tpm;
  o.pcr = static_cast<uint32_t>(config.attestation.pcr);
  // What the operator states of a key they provisioned; a key the node made
  // itself is a development key.
  o.key_provenance = config.attestation.signing_key.empty() ? "dev-only" : config.attestation.key_provenance;
  o.key = std::move(key);
  const nlohmann::json* egress = config.document.contains("egress") ? &config.document["egress"] : nullptr;
  o.allowlist = egress && egress->contains("allow") ? (*egress)["allow"] : nlohmann::json::array();
  o.trust = attest::TrustDocument(TrustSettingsFor(config, data_dir));
  o.kernel_path = ampoule::kernel::DefaultKernelPath();
  o.data_dir = data_dir;
  // In the sealed image the kernel's log is root's alone; PID 1 copied it
  // for the node's user (volent/init/boot_record.h). The verifier replays
  // whichever it is against the quote.
  if (struct stat st; stat(init::kEventLogCopyPath, &st) == 0) o.event_log_path = init::kEventLogCopyPath;
  o.journal_digest = [&journal]() -> Result<std::pair<uint64_t, std::string>> {
    auto digest = journal.GetDigest();
    if (!digest) return digest.error();
    return std::make_pair(digest->entries, digest->ToString());
  };
  return o;
}

namespace {

// What the opening steps below share besides the parts: the options, the
// data folder and the control API's listening settings.
struct Opening {
  const NodeOptions& options;
  std::string data_dir;
  control::ServerOptions server;
  void Warn(const std::string& text) const {
    if (options.warn) options.warn(text);
  }
  void Notice(const std::string& text) const {
    if (options.notice) options.notice(text);
  }
};

// The address to listen on: volent.yaml's, unless --listen gives one.
core::Status ChooseListenAddress(Node::Parts& parts, Opening& o) {
  o.server.host = parts.config.listen_host;
  o.server.port = parts.config.listen_port;
  if (!o.options.listen.empty()) {
    auto listen = core::ParseHostPort(o.options.listen, core::PortRule::kRequiredOrAny);
    if (!listen) {
      return Error{"--listen '" + o.options.listen + "' " + listen.message() + " (e.g. 127.0.0.1:8470)",
                   ErrorKind::kInvalidArgument};
    }
    o.server.host = listen->host;
    o.server.port = listen->port;
  }
  parts.host = o.server.host;
  return core::Status::Ok();
}

// The data folder, made if need be and locked, before anything in it is
// read: a folder others may write is refused, and one other node or offline
// command already in it is named.
core::Status LockDataFolder(Node::Parts& parts, const Opening& o) {
  if (!MakeDirs(o.data_dir)) return Failed("cannot create the data folder " + o.data_dir + ": " + core::ErrnoText());
  auto lock = store::OpenDataFolder(o.data_dir, store::NodeHolder());
  if (!lock) {
    return Error{lock.kind() == ErrorKind::kConflict
                     ? "the data folder " + lock.message() + ": one node at a time runs on a data folder"
                     : lock.message(),
                 lock.kind()};
  }
  parts.data_lock = std::move(*lock);
  return core::Status::Ok();
}

// The trusted tool keys, the tool store and the agent store. A stored
// manifest must still pass this configuration, and its sealed tools must
// still be in the tool store and pass their checks.
core::Status OpenStores(Node::Parts& parts, const Opening& o) {
  auto tool_keys = tools::TrustedToolKeys(parts.config.tool_keys);
  if (!tool_keys) return Error{tool_keys.message(), ErrorKind::kInvalidArgument};
  parts.tool_keys = std::move(*tool_keys);
  parts.tool_store = std::make_unique<tools::ToolStore>(o.data_dir);
  tools::ToolCheckCache checked_tools;  // each stored tool is loaded once, however many agents name it
  auto recheck = [&](std::string_view name, std::string_view manifest_json) {
    auto again = manifest::LoadAgent(manifest_json, std::string(name), &parts.config);
    if (again.ok()) {
      again.problems = tools::CheckAgentTools(*again.value, *parts.tool_store, parts.tool_keys, name, &checked_tools);
    }
    if (again.problems.empty()) return true;
    std::string text = "agent " + std::string(name) + " no longer passes this configuration (status rejected):";
    for (const auto& p : again.problems) text += "\n  " + manifest::FormatProblem(p);
    o.Warn(text);
    return false;
  };
  auto store = store::AgentStore::Open(o.data_dir, recheck);
  if (!store) return store.error();
  parts.store = std::move(*store);
  return core::Status::Ok();
}

// The model keys, the egress credentials' values (read once now, so a
// missing or refused file stops the start rather than the first run, naming
// the file, never the value), the journal, the egress gate and the model
// client over it.
core::Status OpenJournalAndEgress(Node::Parts& parts, const Opening& o) {
  const manifest::NodeConfig& cfg = parts.config;
  model::LoadedKeys keys = model::LoadModelKeys(cfg.model_keys);
  for (const auto& warning : keys.warnings) o.Warn(warning);
  if (!keys.ok()) {
    std::string text;
    for (const auto& error : keys.errors) text += (text.empty() ? "" : "\n") + error;
    return Error{text, ErrorKind::kInvalidArgument};
  }
  auto credentials = egress::LoadCredentials(cfg.egress_credentials);
  if (!credentials) return Error{"egress.credentials: " + credentials.message(), ErrorKind::kInvalidArgument};

  journal::OpenOptions journal_options;
  journal_options.before_commit = [] { core::CrashPoint(agent::kNodeCrashEnv, "mid-commit"); };
  auto journal = journal::Journal::Open(o.data_dir, std::move(journal_options));
  if (!journal) return journal.error();
  parts.journal = std::move(*journal);

  egress::GateOptions gate_options;
  gate_options.dns_server = cfg.egress_dns_server;
  gate_options.max_redirects = cfg.egress_max_redirects;
  gate_options.on_denial = agent::JournalDenials(*parts.journal);
  gate_options.credentials = std::move(*credentials);
  parts.gate = std::make_unique<egress::Gate>(cfg.egress, std::move(gate_options));
  parts.models = std::make_unique<model::Client>(*parts.gate, std::move(keys.keys));
  return core::Status::Ok();
}

// The control API's TLS, before the attestation: the client CA it trusts
// (the node's own, made here at the first start) is measured.
core::Status PrepareTls(Node::Parts& parts, Opening& o) {
  const manifest::ControlConfig& control_config = parts.config.control;
  if (!control_config.tls) return core::Status::Ok();
  auto tls = control::MakeServerTls(control_config, o.data_dir, o.server.host, o.options.notice);
  if (!tls) return Failed("control.tls: " + tls.message());
  o.server.tls = tls->context;
  parts.tls = true;
  o.Notice("control API over TLS with " + tls->certificate +
           (tls->client_ca.empty() ? std::string() : "; client certificates verified against " + tls->client_ca));
  return core::Status::Ok();
}

// The attestor: measured before anything is served (docs/attestation.md).
core::Status StartAttestor(Node::Parts& parts, const Opening& o,
                           std::shared_ptr<const core::ed25519::SecretKey> node_key) {
  auto attestor = attest::Attestor::Start(AttestorOptionsFor(parts.config, o.data_dir, std::move(node_key),
                                                             *parts.journal));
  if (!attestor) return Failed("attestation: " + attestor.message());
  parts.attestor = std::move(*attestor);
  if (!parts.attestor->boot().why.empty()) {
    o.Warn("attestation reports will say the unsealed profile: " + parts.attestor->boot().why);
  }
  if (!parts.attestor->no_tpm_reason().empty()) {
    o.Warn("attestation reports will carry no TPM quote: " + parts.attestor->no_tpm_reason());
  }
  return core::Status::Ok();
}

// The tools (sealed ones on the kernel, each with a receipt signed by
// `node_key`; http ones through the egress gate) and the runs, resumed from
// the journal.
core::Status ResumeRuns(Node::Parts& parts, const Opening& o, std::shared_ptr<const core::ed25519::SecretKey> node_key) {
  sealed::SealedToolOptions sealed_options;
  sealed_options.data_dir = o.data_dir;
  sealed_options.trusted = parts.tool_keys;
  sealed_options.kernel_path = ampoule::kernel::DefaultKernelPath();
  sealed_options.receipt_key = std::move(node_key);
  sealed_options.gate = parts.gate.get();  // declared before the runner: outlives its calls
  sealed_options.journal = parts.journal.get();  // likewise: each request journaled before it is sent
  parts.sealed_tools = std::make_unique<sealed::SealedToolRunner>(std::move(sealed_options));
  agent::ToolPerformer http_tools = agent::GateToolPerformer(*parts.gate, parts.delays);
  agent::ToolPerformer tools = [http_tools, sealed = parts.sealed_tools.get()](
                                   const agent::ToolDef& tool, const nlohmann::json& request,
                                   const std::string& key, agent::StepDone done) {
    if (manifest::IsSealedToolKind(tool.kind)) {
      sealed->Perform(tool, request, key, std::move(done));
    } else {
      http_tools(tool, request, key, std::move(done));
    }
  };
  auto runs = agent::RunManager::Start(*parts.journal, *parts.store, std::move(tools),
                                       agent::ClientModelPerformer(*parts.models, parts.delays));
  if (!runs) return Failed("cannot resume the runs in " + parts.journal->path() + ": " + runs.message());
  parts.runs = std::move(*runs);
  return core::Status::Ok();
}

// Who may call the API: in development mode no one is asked (loopback only,
// said loudly); otherwise the credential store, with a bootstrap admin
// token when no admin token is active.
core::Status OpenAccess(Node::Parts& parts, const Opening& o) {
  const manifest::ControlConfig& control_config = parts.config.control;
  control::AuthOptions auth_options;
  auth_options.development_no_auth = control_config.development_no_auth;
  auth_options.tokens = control_config.tokens;
  auth_options.mtls = control_config.mtls;
  auth_options.journal = parts.journal.get();
  CORE_RETURN_IF_ERROR(CheckDevelopmentMode(control_config, o.server.host));
  if (control_config.development_no_auth) {
    o.Warn("DEVELOPMENT MODE: the control API has no authentication (control.development_no_auth); "
           "anyone on this machine can do anything");
  } else {
    auto credentials = access::CredentialStore::Open(o.data_dir);
    if (!credentials) return Failed("credentials: " + credentials.message());
    parts.credentials = std::move(*credentials);
    if (control_config.tokens && !parts.credentials->HasActive(access::Role::kAdmin)) {
      auto made = Bootstrap(*parts.credentials, *parts.journal, o.data_dir, o.options);
      if (!made.ok()) return Failed("the first admin token: " + made.message());
    }
    auth_options.credentials = parts.credentials.get();
  }
  parts.auth = std::make_unique<control::Authenticator>(std::move(auth_options));
  return core::Status::Ok();
}

// The control API over every part, bound to its address.
core::Status BindApi(Node::Parts& parts, const Opening& o) {
  control::ApiContext context;
  context.auth = parts.auth.get();
  context.credentials = parts.credentials.get();
  context.store = parts.store.get();
  context.runs = parts.runs.get();
  context.journal = parts.journal.get();
  context.config = &parts.config;
  context.metrics = &parts.metrics;
  context.tool_store = parts.tool_store.get();
  context.tool_keys = &parts.tool_keys;
  context.check_agent = [store = parts.tool_store.get(), keys = &parts.tool_keys](const manifest::Agent& agent) {
    return tools::CheckAgentTools(agent, *store, *keys, "manifest");
  };
  context.attest = [attestor = parts.attestor.get()](const std::string& nonce) { return attestor->Report(nonce); };
  context.activate_credential = [attestor = parts.attestor.get()](std::string_view credential) {
    return attestor->ActivateCredential(credential);
  };
  parts.api = std::make_unique<control::ControlApi>(context);
  auto server = control::HttpServer::Bind(*parts.api, o.server);
  if (!server) return server.error();
  parts.server = std::move(*server);
  return core::Status::Ok();
}

}  // namespace

core::Status CheckDevelopmentMode(const manifest::ControlConfig& control, const std::string& host) {
  if (control.development_no_auth && !IsLoopbackHost(host)) {
    return Error{"control.development_no_auth is true but the node would listen on " + host +
                     ": without authentication it listens on loopback only (127.0.0.1 or ::1)",
                 ErrorKind::kInvalidArgument};
  }
  return core::Status::Ok();
}

// Each part opened in turn, in the order Parts declares them.
Result<std::unique_ptr<Node>> Node::Start(manifest::NodeConfig config, const NodeOptions& options) {
  RaiseDescriptorLimit(options);
  auto parts = std::make_unique<Parts>();
  parts->config = std::move(config);
  // The configuration's data_dir is never empty: LoadNodeConfig defaults it
  // to "data" beside the configuration file.
  Opening o{options, !options.data_dir.empty() ? options.data_dir : parts->config.data_dir, {}};
  CORE_RETURN_IF_ERROR(ChooseListenAddress(*parts, o));
  CORE_RETURN_IF_ERROR(LockDataFolder(*parts, o));
  CORE_RETURN_IF_ERROR(OpenStores(*parts, o));
  CORE_RETURN_IF_ERROR(OpenJournalAndEgress(*parts, o));
  auto node_key = NodeKey(parts->config, o.data_dir, /*create=*/true);
  if (!node_key) return node_key.error();
  CORE_RETURN_IF_ERROR(PrepareTls(*parts, o));
  CORE_RETURN_IF_ERROR(StartAttestor(*parts, o, *node_key));
  CORE_RETURN_IF_ERROR(ResumeRuns(*parts, o, std::move(*node_key)));
  CORE_RETURN_IF_ERROR(OpenAccess(*parts, o));
  CORE_RETURN_IF_ERROR(BindApi(*parts, o));
  return std::unique_ptr<Node>(new Node(std::move(parts)));
}

Node::Node(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

Node::~Node() = default;

int Node::port() const { return parts_->server->port(); }

std::string Node::url() const {
  return (parts_->tls ? "https://" : "http://") + core::FormatHostPort(parts_->host, port());
}

void Node::CatchSignals() { parts_->server->CatchSignals(); }

void Node::Run() {
  parts_->server->Run();
  parts_->auth->Flush();
  parts_->runs->Stop();
}

void Node::Stop() { parts_->server->Stop(); }

}  // namespace volent::boot
