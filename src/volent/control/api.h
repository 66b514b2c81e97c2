// The control API of a Volent node (docs/control-api.md): its route table,
// with every handler bound to the node's state. Transport-free: the HTTP
// server, the tests and the fuzz target all call Dispatch.
//
// Thread-safe: Dispatch may run on many threads at once (the store, the
// runs, the journal and the metrics lock for themselves; everything else is
// immutable after construction). Not copyable or movable: handlers point
// back at it.
#pragma once

#include <chrono>
#include <string>

#include "volent/access/credentials.h"
#include "volent/agent/runs.h"
#include "volent/control/auth.h"
#include "volent/control/message.h"
#include "volent/control/metrics.h"
#include "volent/control/route_table.h"
#include "volent/journal/journal.h"
#include "volent/manifest/manifest.h"
#include "volent/store/agent_store.h"
#include "volent/tools/tool_store.h"

namespace volent::control {

struct ApiContext {
  store::AgentStore* store = nullptr;              // REQUIRES: outlives the API
  const manifest::NodeConfig* config = nullptr;   // manifests are checked against it; may be null
  Metrics* metrics = nullptr;                     // may be null
  // Runs and approvals; null: their routes answer 503 unavailable.
  agent::Runs* runs = nullptr;
  // The journal; null: GET /v1/journal and GET /v1/egress/denials answer
  // 503 unavailable.
  journal::Journal* journal = nullptr;
  // Checks an applied manifest must pass beyond the schema and the
  // configuration (the node's tool store): its problems, none when it passes.
  // Empty: none.
  std::function<manifest::Problems(const manifest::Agent&)> check_agent;
  // The node's tool store and its trusted keys (volent.yaml tool_keys,
  // decoded); null: the tool routes answer 503.
  tools::ToolStore* tool_store = nullptr;
  const std::vector<core::ed25519::PublicKey>* tool_keys = nullptr;
  // The signed attestation report for a nonce (hex), or the refusal
  // (kInvalidArgument 400, kConflict 409, kUnavailable 503); empty: the
  // route answers 503.
  std::function<core::Result<std::string>(const std::string& nonce_hex)> attest;
  // Credential activation (attest/attestor.h): the secret in a credential
  // file, or the refusal (400, 409, 503); empty: the route answers 503.
  std::function<core::Result<std::string>(std::string_view credential)> activate_credential;
  std::string version = "1";                      // info.version of the OpenAPI document
  // Who may call what (auth.h); null: no authentication (in-process tests:
  // every request is the development principal).
  Authenticator* auth = nullptr;
  // The tokens; null: the credential routes answer 503.
  access::CredentialStore* credentials = nullptr;
};

class ControlApi {
 public:
  explicit ControlApi(ApiContext context);
  ControlApi(const ControlApi&) = delete;
  ControlApi& operator=(const ControlApi&) = delete;

  Response Dispatch(Request request) const { return table_.Dispatch(std::move(request)); }
  const RouteTable& routes() const { return table_; }
  const ApiContext& context() const { return context_; }
  const std::string& openapi_json() const { return openapi_json_; }
  double uptime_seconds() const;

 private:
  ApiContext context_;
  RouteTable table_;
  std::string openapi_json_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// The route groups (handlers_*.cc), each adding its rows to `table`.
void AddSystemRoutes(const ControlApi& api, RouteTable& table);
void AddAgentRoutes(const ControlApi& api, RouteTable& table);
void AddRunRoutes(const ControlApi& api, RouteTable& table);
void AddApprovalRoutes(const ControlApi& api, RouteTable& table);
void AddJournalRoutes(const ControlApi& api, RouteTable& table);
void AddEgressRoutes(const ControlApi& api, RouteTable& table);
void AddToolRoutes(const ControlApi& api, RouteTable& table);
void AddAttestationRoutes(const ControlApi& api, RouteTable& table);
void AddCredentialRoutes(const ControlApi& api, RouteTable& table);

}  // namespace volent::control
