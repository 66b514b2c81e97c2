// Routes that are part of the API but whose feature is not in this version:
// they answer 501 not-implemented (docs/control-api.md), so clients can be
// written against the final paths now.
#include "volent/control/api.h"

namespace volent::control {
namespace {

Route Pending(std::string method, std::string path, std::string operation_id, std::string summary,
              std::string what, std::vector<ParameterDoc> parameters = {}) {
  Route route;
  route.method = std::move(method);
  route.path = std::move(path);
  route.operation_id = std::move(operation_id);
  route.summary = std::move(summary);
  route.parameters = std::move(parameters);
  route.responses = {{501, "Not implemented in this version", std::string(kProblemContentType),
                      {{"$ref", "#/components/schemas/Problem"}}}};
  route.handler = [what](const Request& request, const PathParams&) {
    return ProblemResponse(MakeProblem(501, what + " is not available in this version of the node",
                                       request.path));
  };
  return route;
}

}  // namespace

void AddPendingRoutes(RouteTable& table) {
  table.Add(Pending("GET", "/v1/attestation", "getAttestation", "The node's signed attestation report",
                    "attestation"));
}

}  // namespace volent::control
