#include "volent/attest/report.h"

#include <set>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "core/base64.h"
#include "core/hex.h"
#include "core/json.h"
#include "core/sha256.h"
#include "volent/attest/node_pcr.h"
#include "volent/attest/platform_facts.h"

namespace volent::attest {
namespace rc = ampoule::receipt;
using core::Error;
using core::ErrorKind;

namespace {

bool IsHexOfBytes(const std::string& text, size_t max_bytes) {
  return !text.empty() && text.size() % 2 == 0 && text.size() <= 2 * max_bytes &&
         core::IsLowerHex(text, text.size() / 2);
}

}  // namespace

std::string AllowlistDigest(const nlohmann::json& allowlist) { return DocumentDigest(allowlist); }

core::Status MaySign(std::string_view provenance, bool release_shaped) {
  if (release_shaped && provenance != "production") {
    return Error{"refusing to sign: this is a release build and the node's key is " + std::string(provenance) +
                     " (made by the node itself, or not stated as production); provision a production key "
                     "(attestation.signing_key and key_provenance: production in volent.yaml)",
                 ErrorKind::kConflict};
  }
  return core::Status::Ok();
}

nlohmann::json ReportPredicate(const ReportFacts& facts, const core::ed25519::PublicKey& signer) {
  return {
      {"nonce", facts.nonce_hex},
      {"time", facts.time},
      // self_asserted: the boot facts that rest only on a file the node read
      // (platform_facts.h); the quote proves none of them.
      {"boot", {{"profile", facts.boot_profile}, {"secure_boot", facts.secure_boot},
                {"verity_roothash", facts.verity_roothash}, {"modules_disabled", facts.modules_disabled},
                {"secure_boot_keys", facts.secure_boot_keys},
                {"self_asserted", kSelfAssertedBootFacts}}},
      {"key", {{"provenance", facts.key_provenance}, {"public_key", core::Base64Encode(signer.raw())}}},
      {"software", {{"volent", {{"sha256", facts.volent_sha256}}},
                    {"ampoule_kernel", facts.kernel_sha256.is_null() ? nlohmann::json(nullptr)
                                                                     : nlohmann::json{{"sha256", facts.kernel_sha256}}}}},
      {"egress", {{"allowlist", facts.allowlist}, {"sha256", AllowlistDigest(facts.allowlist)}}},
      {"trust", {{"config", facts.trust}, {"sha256", DocumentDigest(facts.trust)}}},
      {"journal", {{"entries", facts.journal_entries}, {"head", facts.journal_head}}},
      {"tpm", facts.tpm},
      // What the node's process may do, as the kernel said (process_facts.h).
      {"process", facts.process},
  };
}

core::Result<std::string> SignReport(const ReportFacts& facts, const core::ed25519::SecretKey& key, bool release_shaped) {
  static const std::set<std::string> kProfiles = {"full-chain", "shim-chain", "verity-only", "unsealed"};
  static const std::set<std::string> kSecureBoot = {"enabled", "disabled", "not-efi", "unknown"};
  static const std::set<std::string> kProvenance = {"dev-only", "production"};
  if (!IsHexOfBytes(facts.nonce_hex, kMaxNonceBytes)) {
    return Error{"the nonce must be 1 to " + std::to_string(kMaxNonceBytes) + " bytes in lowercase hex",
                 ErrorKind::kInvalidArgument};
  }
  if (!kProfiles.count(facts.boot_profile) || !kSecureBoot.count(facts.secure_boot) ||
      !kProvenance.count(facts.key_provenance) || !core::IsLowerHex(facts.volent_sha256, 32) ||
      !facts.allowlist.is_array() || !facts.trust.is_object() || !facts.tpm.is_object()) {
    return Error{"the report's facts are incomplete or out of their domain", ErrorKind::kUnknown};
  }
  CORE_RETURN_IF_ERROR(MaySign(facts.key_provenance, release_shaped));
  rc::Statement statement;
  rc::Subject subject;
  subject.name = "volent";
  subject.digest["sha256"] = facts.volent_sha256;
  statement.subject.push_back(std::move(subject));
  statement.predicate_type = std::string(kNodePredicateType);
  statement.predicate = ReportPredicate(facts, key.public_key());
  return rc::SerializeEnvelope(rc::SignEnvelope(rc::kInTotoPayloadType, rc::SerializeStatement(statement), key));
}

}  // namespace volent::attest
