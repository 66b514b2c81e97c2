#include "ampoule/receipt/verify.h"

#include <vector>

#include "ampoule/receipt/pae.h"

namespace ampoule::receipt {
namespace {

// Key indices in the order to try them for one signature: keys whose id
// matches the hint first (a speed-up only), then every other key.
std::vector<size_t> TryOrder(const std::vector<std::string>& key_ids, std::string_view hint) {
  std::vector<size_t> order;
  for (size_t i = 0; i < key_ids.size(); ++i) {
    if (key_ids[i] == hint) order.push_back(i);
  }
  for (size_t i = 0; i < key_ids.size(); ++i) {
    if (key_ids[i] != hint) order.push_back(i);
  }
  return order;
}

}  // namespace

core::Result<VerifiedEnvelope> VerifyEnvelope(const Envelope& envelope,
                                        std::span<const core::ed25519::PublicKey> trusted) {
  if (trusted.empty()) return core::Error{"no trusted public key given"};
  if (envelope.signatures.empty()) return core::Error{"envelope: has no signatures"};
  std::vector<std::string> key_ids;
  for (const core::ed25519::PublicKey& key : trusted) key_ids.push_back(key.KeyId());

  const std::string pae = Pae(envelope.payload_type, envelope.payload);
  for (size_t s = 0; s < envelope.signatures.size(); ++s) {
    const EnvelopeSignature& signature = envelope.signatures[s];
    for (size_t k : TryOrder(key_ids, signature.keyid)) {
      if (core::ed25519::Verify(trusted[k], pae, signature.sig)) {
        return VerifiedEnvelope{envelope.payload_type, envelope.payload, trusted[k], s};
      }
    }
  }
  return core::Error{"signature check failed: none of the " +
               std::to_string(envelope.signatures.size()) +
               " signature(s) verifies under a trusted key; the receipt was altered, forged, or "
               "signed by a key you did not name"};
}

core::Result<VerifiedReceipt> VerifyReceipt(std::string_view envelope_json,
                                      std::span<const core::ed25519::PublicKey> trusted) {
  core::Result<Envelope> envelope = ParseEnvelope(envelope_json);
  if (!envelope.ok()) return envelope.error();
  core::Result<VerifiedEnvelope> verified = VerifyEnvelope(*envelope, trusted);
  if (!verified.ok()) return verified.error();
  if (verified->payload_type != kInTotoPayloadType) {
    return core::Error{"envelope: payloadType is \"" + verified->payload_type.substr(0, 100) +
                 "\", expected \"" + std::string(kInTotoPayloadType) + "\""};
  }
  core::Result<Statement> statement = ParseStatement(verified->payload);
  if (!statement.ok()) return statement.error();
  return VerifiedReceipt{std::move(*statement), verified->signer};
}

}  // namespace ampoule::receipt
