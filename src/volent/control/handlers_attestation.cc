// The node's attestation report (docs/attestation.md): GET
// /v1/attestation?nonce=HEX answers the signed report, a DSSE envelope, for
// the verifier's nonce; POST /v1/attestation/credential answers the secret
// of a credential made for the node's AK under its EK (credential
// activation). The attestation is the node's business (attest/); these
// routes check the requests and map the refusals.
#include <variant>

#include "core/base64.h"
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

Response Activate(const ApiContext& ctx, const Request& request) {
  if (!ctx.activate_credential) {
    return ProblemResponse(Unavailable("attestation is not available on this node now", request.path));
  }
  auto parsed = ParseJsonObject(request.body, request.path);
  if (auto* problem = std::get_if<Problem>(&parsed)) return ProblemResponse(*problem);
  const nlohmann::json& body = std::get<nlohmann::json>(parsed);
  std::vector<FieldError> errors = UnknownMembers(body, {"credential"});
  std::string credential;
  auto it = body.find("credential");
  if (it == body.end() || !it->is_string()) {
    errors.push_back({"/credential", 0, 0, "required: the tpm2_makecredential output file, base64"});
  } else if (auto decoded = core::Base64Decode(it->get<std::string>(), "the credential")) {
    credential = std::move(*decoded);
  } else {
    errors.push_back({"/credential", 0, 0, decoded.message()});
  }
  if (!errors.empty()) return ProblemResponse(InvalidBody(std::move(errors), request.path));
  auto secret = ctx.activate_credential(credential);
  if (!secret) return ProblemResponse(RefusalProblem(secret.error(), request.path));
  return JsonResponse(200, {{"secret", core::Base64Encode(*secret)}});
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
                    "https://volent.dev/attestations/node/v2)",
               "application/json", {{"type", "object"}, {"required", {"payload", "payloadType", "signatures"}}}}},
             [ctx](const Request& r, const PathParams&) { return Get(*ctx, r); },
             access::Role::kReader});
  table.Add({"POST", "/v1/attestation/credential", "activateCredential",
             "Credential activation: the secret of a credential made for the node's AK under its EK, which only "
             "that TPM can recover (docs/attestation.md)",
             {},
             {"application/json"},
             {{"type", "object"},
              {"additionalProperties", false},
              {"required", {"credential"}},
              {"properties",
               {{"credential", {{"type", "string"}, {"description", "tpm2_makecredential's output file, base64"}}}}}},
             {{200, "The secret, base64", "application/json",
               {{"type", "object"}, {"required", {"secret"}}, {"properties", {{"secret", {{"type", "string"}}}}}}}},
             [ctx](const Request& r, const PathParams&) { return Activate(*ctx, r); },
             access::Role::kAdmin});
}

}  // namespace volent::control
