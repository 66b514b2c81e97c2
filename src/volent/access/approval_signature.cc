#include "volent/access/approval_signature.h"

#include "core/base64.h"

namespace volent::access {

using core::Error;
using core::Base64Decode;
using core::Base64Encode;

namespace {

constexpr std::string_view kFirstForm = "volent-approval/v1";

}  // namespace

std::string ApprovalMessage(bool approve, std::string_view call_digest, std::string_view decider) {
  std::string message(kApprovalSignatureDomain);
  message += "\nkind: ";
  message += kApprovalStatementKind;
  message += "\ndecision: ";
  message += approve ? "approved" : "denied";
  message += "\ncall_digest: ";
  message += call_digest;
  message += "\ndecider: ";
  message += decider;
  message += "\n";
  return message;
}

std::string DeciderOf(const Principal& principal) {
  switch (principal.kind) {
    case Principal::Kind::kToken: return "token:" + principal.token_id;
    case Principal::Kind::kCertificate: return "certificate:sha256:" + principal.certificate_sha256;
    case Principal::Kind::kDevelopment:
    case Principal::Kind::kNone: break;
  }
  return "";
}

std::string DeciderOf(const nlohmann::json& identity) {
  if (!identity.is_object()) return "";
  const std::string kind = identity.value("kind", "");
  if (kind == "token" && identity.contains("token_id") && identity["token_id"].is_string()) {
    return "token:" + identity["token_id"].get<std::string>();
  }
  if (kind == "certificate" && identity.contains("fingerprint") && identity["fingerprint"].is_string()) {
    return "certificate:" + identity["fingerprint"].get<std::string>();
  }
  return "";
}

nlohmann::json SignApproval(const core::ed25519::SecretKey& key, bool approve, std::string_view call_digest,
                            std::string_view decider) {
  return {{"scheme", "ed25519"},
          {"statement", std::string(kApprovalSignatureDomain)},
          {"decider", std::string(decider)},
          {"public_key", Base64Encode(key.public_key().raw())},
          {"sig", Base64Encode(key.Sign(ApprovalMessage(approve, call_digest, decider)))},
          {"call_digest", std::string(call_digest)}};
}

core::Status CheckApprovalSignature(const nlohmann::json& signature, bool approve, std::string_view call_digest,
                                       std::string_view decider, std::string_view expected_key) {
  if (!signature.is_object()) return Error{"the signature must be an object"};
  for (const auto& [member, value] : signature.items()) {
    if (member != "scheme" && member != "statement" && member != "decider" && member != "public_key" &&
        member != "sig" && member != "call_digest") {
      return Error{"the signature has an unknown member \"" + member + "\""};
    }
    if (!value.is_string()) return Error{"the signature's " + member + " must be a string"};
  }
  if (signature.value("scheme", "") != "ed25519") return Error{"the signature's scheme must be \"ed25519\""};
  const std::string statement = signature.value("statement", std::string(kFirstForm));
  if (statement == kFirstForm) {
    return Error{"the signature is of the first form (volent-approval/v1), which does not name who decided, so it "
                 "cannot show that the deciding credential's holder signed: it is no longer accepted; sign with "
                 "this version's volent approve (volent-approval/v2 names the deciding credential)"};
  }
  if (statement != kApprovalSignatureDomain) {
    return Error{"the signature's statement \"" + statement + "\" is not one this node knows (volent-approval/v2)"};
  }
  if (signature.value("call_digest", std::string(call_digest)) != call_digest) {
    return Error{"the signature is for another call (call_digest " + signature.value("call_digest", "") +
                 ", this call is " + std::string(call_digest) + ")"};
  }
  if (decider.empty()) return Error{"the decision was made by no credential, so no signature can name its decider"};
  const std::string named = signature.value("decider", "");
  if (named != decider) {
    return Error{"the signature names the decider \"" + named + "\", but the decision is " + std::string(decider) +
                 "'s: a signature speaks only for the credential it names"};
  }
  const std::string key_text = signature.value("public_key", "");
  if (!expected_key.empty() && key_text != expected_key) {
    return Error{"the signature's public_key is not the approval key registered for " + std::string(decider)};
  }
  auto raw_key = Base64Decode(key_text, "the signature's public_key");
  if (!raw_key) return raw_key.error();
  auto key = core::ed25519::PublicKey::FromBytes(*raw_key);
  if (!key) return Error{"the signature's public_key: " + key.message()};
  auto sig = Base64Decode(signature.value("sig", ""), "the signature's sig");
  if (!sig) return sig.error();
  if (!core::ed25519::Verify(*key, ApprovalMessage(approve, call_digest, decider), *sig)) {
    return Error{"the signature does not verify: it was not made by this key over this decision of this call by " +
                 std::string(decider)};
  }
  return core::Status::Ok();
}

}  // namespace volent::access
