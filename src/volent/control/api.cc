#include "volent/control/api.h"

#include "volent/control/openapi.h"

namespace volent::control {

ControlApi::ControlApi(ApiContext context) : context_(std::move(context)), table_(context_.metrics, context_.auth) {
  AddSystemRoutes(*this, table_);
  AddAgentRoutes(*this, table_);
  AddRunRoutes(*this, table_);
  AddApprovalRoutes(*this, table_);
  AddJournalRoutes(*this, table_);
  AddEgressRoutes(*this, table_);
  AddToolRoutes(*this, table_);
  AddAttestationRoutes(*this, table_);
  AddCredentialRoutes(*this, table_);
  openapi_json_ = BuildOpenApi(table_, context_.version).dump();
}

double ControlApi::uptime_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

}  // namespace volent::control
