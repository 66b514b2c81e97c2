#include "volent/access/principal.h"

#include <algorithm>

namespace volent::access {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kReader: return "reader";
    case Role::kOperator: return "operator";
    case Role::kApprover: return "approver";
    case Role::kAdmin:
    case Role::kUndeclared: break;
  }
  return "admin";
}

std::optional<Role> ParseRole(std::string_view name) {
  for (Role role : {Role::kReader, Role::kOperator, Role::kApprover, Role::kAdmin}) {
    if (RoleName(role) == name) return role;
  }
  return std::nullopt;
}

bool Principal::Allows(Role required) const {
  if (kind == Kind::kDevelopment) return true;
  if (kind == Kind::kNone || roles.empty()) return false;
  auto has = [&](Role r) { return std::find(roles.begin(), roles.end(), r) != roles.end(); };
  if (has(Role::kAdmin)) return true;
  switch (required) {
    case Role::kReader: return true;  // every authenticated caller may read
    case Role::kOperator: return has(Role::kOperator);
    case Role::kApprover: return has(Role::kApprover);
    case Role::kAdmin:
    case Role::kUndeclared: return false;
  }
  return false;
}

std::string Principal::Describe() const {
  switch (kind) {
    case Kind::kNone: return "nobody (not authenticated)";
    case Kind::kDevelopment: return "development (no authentication)";
    case Kind::kToken: return "token " + token_id + " (" + name + ")";
    case Kind::kCertificate: return "certificate " + certificate_subject + " (sha256:" + certificate_sha256 + ")";
  }
  return "";
}

nlohmann::json Principal::ToJson() const {
  nlohmann::json role_names = nlohmann::json::array();
  for (Role r : roles) role_names.push_back(std::string(RoleName(r)));
  switch (kind) {
    case Kind::kToken:
      return {{"kind", "token"}, {"token_id", token_id}, {"name", name}, {"roles", role_names}};
    case Kind::kCertificate:
      return {{"kind", "certificate"},
              {"subject", certificate_subject},
              {"fingerprint", "sha256:" + certificate_sha256},
              {"roles", role_names}};
    case Kind::kDevelopment: return {{"kind", "development"}};
    case Kind::kNone: break;
  }
  return {{"kind", "none"}};
}

}  // namespace volent::access
