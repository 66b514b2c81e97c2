#include "volent/control/approval_signature.h"

#include "ampoule/receipt/base64.h"

namespace volent::control {

using ampoule::Error;
using ampoule::receipt::Base64Decode;
using ampoule::receipt::Base64Encode;

std::string ApprovalMessage(bool approve, std::string_view call_digest) {
  std::string message(kApprovalSignatureDomain);
  message += "\n";
  message += approve ? "approved" : "denied";
  message += "\n";
  message += call_digest;
  message += "\n";
  return message;
}

nlohmann::json SignApproval(const ampoule::receipt::SecretKey& key, bool approve, std::string_view call_digest) {
  return {{"scheme", "ed25519"},
          {"public_key", Base64Encode(key.public_key().raw())},
          {"sig", Base64Encode(key.Sign(ApprovalMessage(approve, call_digest)))},
          {"call_digest", std::string(call_digest)}};
}

ampoule::Status CheckApprovalSignature(const nlohmann::json& signature, bool approve, std::string_view call_digest,
                                       std::string_view expected_key) {
  if (!signature.is_object()) return Error{"the signature must be an object"};
  for (const auto& [member, value] : signature.items()) {
    if (member != "scheme" && member != "public_key" && member != "sig" && member != "call_digest") {
      return Error{"the signature has an unknown member \"" + member + "\""};
    }
    if (!value.is_string()) return Error{"the signature's " + member + " must be a string"};
  }
  if (signature.value("scheme", "") != "ed25519") return Error{"the signature's scheme must be \"ed25519\""};
  if (signature.value("call_digest", std::string(call_digest)) != call_digest) {
    return Error{"the signature is for another call (call_digest " + signature.value("call_digest", "") +
                 ", this call is " + std::string(call_digest) + ")"};
  }
  const std::string key_text = signature.value("public_key", "");
  if (!expected_key.empty() && key_text != expected_key) {
    return Error{"the signature's public_key is not the approval key registered for this credential"};
  }
  auto raw_key = Base64Decode(key_text, "the signature's public_key");
  if (!raw_key) return raw_key.error();
  auto key = ampoule::receipt::PublicKey::FromBytes(*raw_key);
  if (!key) return Error{"the signature's public_key: " + key.message()};
  auto sig = Base64Decode(signature.value("sig", ""), "the signature's sig");
  if (!sig) return sig.error();
  if (!ampoule::receipt::Verify(*key, ApprovalMessage(approve, call_digest), *sig)) {
    return Error{"the signature does not verify: it was not made by this key over this decision of this call"};
  }
  return ampoule::Status::Ok();
}

}  // namespace volent::control
