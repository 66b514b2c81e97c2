#include "ampoule/receipt/envelope.h"

#include "ampoule/receipt/pae.h"
#include "core/base64.h"
#include "core/json_strict.h"

namespace ampoule::receipt {
namespace {

using nlohmann::json;

// Looks up a required string member; `where` names the object in errors.
core::Result<std::string> RequiredString(const json& object, const char* name, const std::string& where) {
  auto it = object.find(name);
  if (it == object.end()) return core::Error{where + ": missing required field \"" + name + "\""};
  if (!it->is_string()) return core::Error{where + ": field \"" + name + "\" must be a string"};
  return it->get<std::string>();
}

core::Result<EnvelopeSignature> ParseSignature(const json& entry, size_t index) {
  const std::string where = "envelope: signatures[" + std::to_string(index) + "]";
  if (!entry.is_object()) return core::Error{where + ": must be an object"};
  EnvelopeSignature signature;
  auto keyid = entry.find("keyid");
  if (keyid != entry.end()) {
    if (!keyid->is_string()) return core::Error{where + ": field \"keyid\" must be a string"};
    signature.keyid = keyid->get<std::string>();
  }
  core::Result<std::string> sig_text = RequiredString(entry, "sig", where);
  if (!sig_text.ok()) return sig_text.error();
  core::Result<std::string> sig = core::Base64Decode(*sig_text, where + ".sig");
  if (!sig.ok()) return sig.error();
  signature.sig = std::move(*sig);
  return signature;
}

}  // namespace

core::Result<Envelope> ParseEnvelope(std::string_view json_text) {
  if (json_text.size() > kMaxEnvelopeBytes) {
    return core::Error{"envelope: larger than the " + std::to_string(kMaxEnvelopeBytes) + "-byte limit"};
  }
  core::Result<json> doc = core::ParseJsonStrict(json_text, "envelope", core::JsonNumbers::kExact);
  if (!doc.ok()) return doc.error();
  if (!doc->is_object()) return core::Error{"envelope: must be a JSON object"};
  Envelope envelope;
  core::Result<std::string> type = RequiredString(*doc, "payloadType", "envelope");
  if (!type.ok()) return type.error();
  envelope.payload_type = std::move(*type);
  core::Result<std::string> payload_text = RequiredString(*doc, "payload", "envelope");
  if (!payload_text.ok()) return payload_text.error();
  core::Result<std::string> payload = core::Base64Decode(*payload_text, "envelope: payload");
  if (!payload.ok()) return payload.error();
  envelope.payload = std::move(*payload);

  auto signatures = doc->find("signatures");
  if (signatures == doc->end()) return core::Error{"envelope: missing required field \"signatures\""};
  if (!signatures->is_array()) return core::Error{"envelope: field \"signatures\" must be an array"};
  if (signatures->size() > kMaxSignatures) {
    return core::Error{"envelope: more than " + std::to_string(kMaxSignatures) + " signatures"};
  }
  for (size_t i = 0; i < signatures->size(); ++i) {
    core::Result<EnvelopeSignature> signature = ParseSignature((*signatures)[i], i);
    if (!signature.ok()) return signature.error();
    envelope.signatures.push_back(std::move(*signature));
  }
  return envelope;
}

std::string SerializeEnvelope(const Envelope& envelope) {
  json signatures = json::array();
  for (const EnvelopeSignature& s : envelope.signatures) {
    signatures.push_back({{"keyid", s.keyid}, {"sig", core::Base64Encode(s.sig)}});
  }
  json doc = {{"payload", core::Base64Encode(envelope.payload)},
              {"payloadType", envelope.payload_type},
              {"signatures", std::move(signatures)}};
  return core::DumpJson(doc, 2) + "\n";
}

void AddSignature(Envelope& envelope, const core::ed25519::SecretKey& key) {
  envelope.signatures.push_back(
      {key.public_key().KeyId(), key.Sign(Pae(envelope.payload_type, envelope.payload))});
}

Envelope SignEnvelope(std::string_view payload_type, std::string payload, const core::ed25519::SecretKey& key) {
  Envelope envelope{std::string(payload_type), std::move(payload), {}};
  AddSignature(envelope, key);
  return envelope;
}

}  // namespace ampoule::receipt
