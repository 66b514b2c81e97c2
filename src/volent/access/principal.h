// Who a request comes from, once authenticated, and what they may do
// (docs/decisions/0040-control-api-authentication.md).
//
// Roles, least privilege first:
//   reader    list and read: agents, runs, approvals, the journal, egress
//             denials, tools, metrics, attestation, health, the documents
//   operator  apply and delete agents, start runs, add tools
//   approver  decide approvals
//   admin     credentials; and everything above
// Every authenticated caller may read; operator and approver are separate
// on purpose (who starts a run should not be who approves its calls) and a
// credential may hold both. Each route of the table names the one role it
// needs (route_table.h); a route that names none needs admin.
//
// Thread-safe: values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace volent::access {

enum class Role {
  kUndeclared,  // a route that forgot to say: treated as kAdmin (fail closed)
  kReader,
  kOperator,
  kApprover,
  kAdmin,
};

// "reader", "operator", "approver", "admin" ("admin" for kUndeclared).
std::string_view RoleName(Role role);
// The role named `name`, or nothing (kUndeclared is never parsed).
std::optional<Role> ParseRole(std::string_view name);

struct Principal {
  enum class Kind { kNone, kDevelopment, kToken, kCertificate };
  Kind kind = Kind::kNone;  // kNone: not authenticated (yet)
  std::vector<Role> roles;
  // A token: its public id and the name given at creation.
  std::string token_id;
  std::string name;
  // A client certificate: its subject (RFC 2253) and the SHA-256 of its DER.
  std::string certificate_subject;
  std::string certificate_sha256;
  // A token's registered approval key (base64 of the Ed25519 public key): its
  // holder's decisions must carry a signature by it. "" when none.
  std::string approval_key;

  // True when this principal may call a route that needs `required`.
  bool Allows(Role required) const;
  // One line for people and the journal: "token 3f9a... (alice)",
  // "certificate CN=alice,OU=approver (sha256:...)", "development (no authentication)".
  std::string Describe() const;
  // The identity as recorded in the journal: kind, and the token's id and
  // name or the certificate's subject and fingerprint; roles. Never a secret.
  nlohmann::json ToJson() const;
};

}  // namespace volent::access
