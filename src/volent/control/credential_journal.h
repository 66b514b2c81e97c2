// A token made and its creation journaled (credential-created), as one
// step: the node's API (POST /v1/credentials), the node's first start (the
// bootstrap admin) and `volent credential create` (a data folder prepared
// before the node ever runs, as for the sealed image's /data) all make
// tokens through here, so the journal says the same of each. The entry never
// holds the token, only its id.
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "volent/access/credentials.h"
#include "volent/journal/journal.h"

namespace volent::control {

// The credential-created payload: id, kind, name, roles, expires_at,
// approval_key, and `by` (who made it: a principal's JSON or the node's own).
nlohmann::json CredentialCreatedPayload(const access::ApiCredential& credential, const nlohmann::json& by);

// Makes the token and journals it. If the journal refuses, the token is
// revoked at once and the error says so: a credential the journal does not
// show must not work.
core::Result<std::pair<access::ApiCredential, std::string>> CreateJournaled(access::CredentialStore& store, journal::Journal& journal,
                                                                    const access::NewCredential& request,
                                                                    const nlohmann::json& by);

}  // namespace volent::control
