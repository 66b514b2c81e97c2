#include "volent/control/credential_journal.h"

#include "core/rfc3339.h"
#include "volent/control/json_api.h"

namespace volent::control {

nlohmann::json CredentialCreatedPayload(const access::ApiCredential& c, const nlohmann::json& by) {
  nlohmann::json roles = nlohmann::json::array();
  for (access::Role r : c.roles) roles.push_back(std::string(access::RoleName(r)));
  return {{"id", c.id},
          {"kind", "token"},
          {"name", c.name},
          {"roles", roles},
          {"expires_at", core::Rfc3339Millis(c.expires_ms)},
          {"approval_key", c.approval_key.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.approval_key)},
          {"by", by}};
}

core::Result<std::pair<access::ApiCredential, std::string>> CreateJournaled(access::CredentialStore& store, journal::Journal& journal,
                                                                    const access::NewCredential& request,
                                                                    const nlohmann::json& by) {
  auto made = store.Create(request);
  if (!made) return made.error();
  auto journaled = journal.AppendOwnKey(journal::EntryKind::kCredentialCreated, "control", "credentials",
                                        CredentialCreatedPayload(made->first, by));
  if (!journaled) {
    (void)store.Revoke(made->first.id, "the node (its creation could not be journaled)");
    return core::Error{"the journal cannot record the credential, so it was not made: " + journaled.message(),
                          core::ErrorKind::kUnavailable};
  }
  return made;
}

}  // namespace volent::control
