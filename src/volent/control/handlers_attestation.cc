// The node's attestation report (docs/attestation.md): GET
// /v1/attestation?nonce=HEX answers the signed report, a DSSE envelope, for
// the verifier's nonce. The report is the node's business (attest/); this
// route checks the request and maps the refusals.
#include "volent/control/api.h"
#include "volent/control/json_api.h"

namespace volent::control {
namespace {

Response Get(const ApiContext& ctx, const Request& request) {
  if (!ctx.attest) {
    return ProblemResponse(Unavailable("attestation is not available on this node now", request.path));
  }
  const std::optional<std::string> nonce = QueryParam(request.query, "nonce");
  if (!nonce || nonce->empty()) {
    return ProblemResponse(MakeProblem(400,
                                       "nonce is required: a fresh value from the verifier, 1 to 32 bytes in "
                                       "lowercase hex, so that a report cannot be replayed",
                                       request.path));
  }
  auto report = ctx.attest(*nonce);
  if (!report) return ProblemResponse(RefusalProblem(report.error(), request.path));
  Response r;
  r.status = 200;
  r.content_type = "application/json";
  r.body = *report + "\n";
  return r;
}

}  // namespace

void AddAttestationRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"GET", "/v1/attestation", "getAttestation",
             "The node's signed attestation report for the verifier's nonce (docs/attestation.md)",
             {{"nonce", "query", "The verifier's fresh nonce, 1 to 32 bytes in lowercase hex",
               {{"type", "string"}, {"pattern", "^([0-9a-f]{2}){1,32}$"}}, true}},
             {}, {},
             {{200, "The report: a DSSE envelope around an in-toto statement (predicate "
                    "https://volent.dev/attestations/node/v1)",
               "application/json", {{"type", "object"}, {"required", {"payload", "payloadType", "signatures"}}}}},
             [ctx](const Request& r, const PathParams&) { return Get(*ctx, r); }});
}

}  // namespace volent::control
