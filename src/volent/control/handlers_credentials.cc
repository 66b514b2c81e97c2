// Credentials over the control API (admin only; docs/control-api.md,
// "Credentials"): make a token (shown once, in the answer to its creation),
// list them (never a secret), revoke one. Each creation and revocation is
// journaled with who did it; a change the journal cannot record is undone
// and answered 503, so no live credential is missing from the journal.
#include <variant>

#include <algorithm>

#include "core/base64.h"
#include "core/ed25519.h"
#include "core/hex.h"
#include "volent/control/api.h"
#include "volent/control/credential_journal.h"
#include "volent/control/json_api.h"

namespace volent::control {
namespace {

using nlohmann::json;

constexpr char kJournalAgent[] = "control";
constexpr char kJournalRun[] = "credentials";

Problem NoCredentials(const Request& request) {
  return Unavailable("this node keeps no credentials (it runs without authentication)", request.path);
}

json RoleNames(const std::vector<access::Role>& roles) {
  json out = json::array();
  for (access::Role r : roles) out.push_back(std::string(access::RoleName(r)));
  return out;
}

json CredentialJson(const access::ApiCredential& c, int64_t now_ms) {
  auto or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  std::string state = c.revoked_ms != 0 ? "revoked" : now_ms >= c.expires_ms ? "expired" : "active";
  return {{"id", c.id},
          {"kind", "token"},
          {"name", c.name},
          {"roles", RoleNames(c.roles)},
          {"state", state},
          {"created_at", TimeOrNull(c.created_ms)},
          {"expires_at", TimeOrNull(c.expires_ms)},
          {"revoked_at", TimeOrNull(c.revoked_ms)},
          {"created_by", c.created_by},
          {"revoked_by", or_null(c.revoked_by)},
          {"approval_key", or_null(c.approval_key)}};
}

// The request's NewCredential, or 422 with every field error.
std::variant<access::NewCredential, Problem> ReadNew(const json& body, const Request& request) {
  std::vector<FieldError> errors = UnknownMembers(body, {"name", "roles", "ttl_seconds", "approval_key"});
  access::NewCredential c;
  auto name = body.find("name");
  if (name == body.end() || !name->is_string() || !access::IsValidCredentialName(name->get<std::string>())) {
    errors.push_back({"/name", 0, 0, "required: 1 to 100 bytes of UTF-8 without control characters"});
  } else {
    c.name = name->get<std::string>();
  }
  auto roles = body.find("roles");
  if (roles == body.end() || !roles->is_array() || roles->empty() || roles->size() > 4) {
    errors.push_back({"/roles", 0, 0, "required: 1 to 4 of reader, operator, approver, admin"});
  } else {
    for (size_t i = 0; i < roles->size(); ++i) {
      const json& r = (*roles)[i];
      auto role = r.is_string() ? access::ParseRole(r.get<std::string>()) : std::nullopt;
      if (!role) {
        errors.push_back({"/roles/" + std::to_string(i), 0, 0, "must be reader, operator, approver or admin"});
      } else if (std::find(c.roles.begin(), c.roles.end(), *role) == c.roles.end()) {
        c.roles.push_back(*role);
      }
    }
  }
  if (auto ttl = body.find("ttl_seconds"); ttl != body.end()) {
    if (!ttl->is_number_integer() || ttl->get<int64_t>() < 1 || ttl->get<int64_t>() > access::kMaxTokenTtlSeconds) {
      errors.push_back({"/ttl_seconds", 0, 0, "must be an integer from 1 to 31622400 (366 days)"});
    } else {
      c.ttl_seconds = ttl->get<int64_t>();
    }
  }
  if (auto key = body.find("approval_key"); key != body.end()) {
    auto raw = key->is_string() ? core::Base64Decode(key->get<std::string>(), "approval_key")
                                : core::Result<std::string>(core::Error{"must be a string"});
    auto checked = raw ? core::ed25519::PublicKey::FromBytes(*raw) : core::Result<core::ed25519::PublicKey>(raw.error());
    if (!checked) {
      errors.push_back({"/approval_key", 0, 0,
                        "must be an Ed25519 public key, the base64 of its 32 bytes: " + checked.message()});
    } else {
      c.approval_key = key->get<std::string>();
    }
  }
  if (!errors.empty()) return InvalidBody(std::move(errors), request.path);
  c.created_by = request.principal.Describe();
  return c;
}

Response Create(const ApiContext& ctx, const Request& request) {
  if (!ctx.credentials) return ProblemResponse(NoCredentials(request));
  auto parsed = ParseJsonObject(request.body, request.path);
  if (auto* problem = std::get_if<Problem>(&parsed)) return ProblemResponse(*problem);
  auto wanted = ReadNew(std::get<json>(parsed), request);
  if (auto* problem = std::get_if<Problem>(&wanted)) return ProblemResponse(*problem);
  const access::NewCredential& wanted_credential = std::get<access::NewCredential>(wanted);
  auto made = ctx.journal ? CreateJournaled(*ctx.credentials, *ctx.journal, wanted_credential, request.principal.ToJson())
                          : ctx.credentials->Create(wanted_credential);
  if (!made) {
    if (made.error().kind == core::ErrorKind::kUnavailable && ctx.journal) {
      return ProblemResponse(Unavailable(made.message(), request.path));
    }
    return ProblemResponse(RefusalProblem(made.error(), request.path));
  }
  const access::ApiCredential& c = made->first;
  json body = CredentialJson(c, ctx.credentials->now_ms());
  body["token"] = made->second;  // its only copy
  Response r = JsonResponse(201, body);
  r.headers.emplace_back("Location", "/v1/credentials/" + c.id);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

Response List(const ApiContext& ctx, const Request& request) {
  if (!ctx.credentials) return ProblemResponse(NoCredentials(request));
  json list = json::array();
  const int64_t now = ctx.credentials->now_ms();
  for (const auto& c : ctx.credentials->List()) list.push_back(CredentialJson(c, now));
  return JsonResponse(200, {{"credentials", std::move(list)}});
}

Response Revoke(const ApiContext& ctx, const Request& request, const PathParams& params) {
  if (!ctx.credentials) return ProblemResponse(NoCredentials(request));
  const std::string& id = params.find("id")->second;
  if (!core::IsLowerHex(id, access::kTokenIdHexDigits / 2)) {
    return ProblemResponse(MakeProblem(400, "a credential id is 16 lowercase hex digits", request.path));
  }
  auto revoked = ctx.credentials->Revoke(id, request.principal.Describe());
  if (!revoked) return ProblemResponse(RefusalProblem(revoked.error(), request.path));
  if (ctx.journal) {
    json payload = {{"id", revoked->id}, {"name", revoked->name}, {"by", request.principal.ToJson()}};
    // Revoked already: a journal that cannot say so does not bring it back.
    auto journaled =
        ctx.journal->AppendOwnKey(journal::EntryKind::kCredentialRevoked, kJournalAgent, kJournalRun, payload);
    if (!journaled) {
      return ProblemResponse(Unavailable("the credential is revoked, but the journal could not record it: " +
                                             journaled.message(), request.path));
    }
  }
  return JsonResponse(200, CredentialJson(*revoked, ctx.credentials->now_ms()));
}

json CredentialSchema(bool with_token) {
  json time = TimeOrNullSchema();
  json nullable = {{"type", {"string", "null"}}};
  json schema = {
      {"type", "object"},
      {"required", {"id", "kind", "name", "roles", "state", "created_at", "expires_at", "revoked_at", "created_by",
                    "revoked_by", "approval_key"}},
      {"properties",
       {{"id", {{"type", "string"}, {"pattern", "^[0-9a-f]{16}$"}}},
        {"kind", {{"const", "token"}}},
        {"name", {{"type", "string"}}},
        {"roles", {{"type", "array"}, {"items", {{"enum", {"reader", "operator", "approver", "admin"}}}}}},
        {"state", {{"enum", {"active", "expired", "revoked"}}}},
        {"created_at", time},
        {"expires_at", time},
        {"revoked_at", time},
        {"created_by", {{"type", "string"}}},
        {"revoked_by", nullable},
        {"approval_key", nullable}}}};
  if (with_token) {
    schema["required"].push_back("token");
    schema["properties"]["token"] = {{"type", "string"},
                                     {"pattern", "^vlt_[0-9a-f]{16}_[0-9a-f]{64}$"},
                                     {"description", "The bearer token: shown here once, never again"}};
  }
  return schema;
}

json NewCredentialSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", {"name", "roles"}},
          {"properties",
           {{"name", {{"type", "string"}, {"minLength", 1}, {"maxLength", 100}}},
            {"roles",
             {{"type", "array"},
              {"minItems", 1},
              {"maxItems", 4},
              {"items", {{"enum", {"reader", "operator", "approver", "admin"}}}}}},
            {"ttl_seconds",
             {{"type", "integer"}, {"minimum", 1}, {"maximum", access::kMaxTokenTtlSeconds}, {"default", access::kDefaultTokenTtlSeconds}}},
            {"approval_key",
             {{"type", "string"},
              {"description", "An Ed25519 public key (base64 of 32 bytes): decisions by this credential must "
                              "then carry a signature by it"}}}}}};
}

}  // namespace

void AddCredentialRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"POST", "/v1/credentials", "createCredential",
             "Make a bearer token with roles and an expiry; the answer holds the token, once", {},
             {"application/json"}, NewCredentialSchema(),
             {{201, "Made: the credential and its token", "application/json", CredentialSchema(true)}},
             [ctx](const Request& r, const PathParams&) { return Create(*ctx, r); }, access::Role::kAdmin});
  table.Add({"GET", "/v1/credentials", "listCredentials", "Every credential, revoked and expired ones too (no secrets)",
             {}, {}, {},
             {{200, "The credentials, oldest first", "application/json",
               {{"type", "object"},
                {"required", json::array({"credentials"})},
                {"properties", {{"credentials", {{"type", "array"}, {"items", CredentialSchema(false)}}}}}}}},
             [ctx](const Request& r, const PathParams&) { return List(*ctx, r); }, access::Role::kAdmin});
  table.Add({"POST", "/v1/credentials/{id}/revoke", "revokeCredential", "Revoke a credential: it stops working now",
             {{"id", "path", "The credential's id", {{"type", "string"}, {"pattern", "^[0-9a-f]{16}$"}}, true}},
             {}, {},
             {{200, "Revoked: the credential", "application/json", CredentialSchema(false)}},
             [ctx](const Request& r, const PathParams& p) { return Revoke(*ctx, r, p); }, access::Role::kAdmin});
}

}  // namespace volent::control
