// The DSSE JSON envelope that carries a receipt.
//
//   {"payload": "<base64 bytes>", "payloadType": "<type>",
//    "signatures": [{"keyid": "<hint>", "sig": "<base64 signature>"}]}
//
// Parsing follows the DSSE envelope rules: payload, payloadType, signatures
// and each sig are required (possibly empty); keyid is optional and unset
// means empty; unknown fields are ignored. Base64 in either alphabet is
// accepted. Parsing checks form only: it says nothing about who signed,
// and the payload stays undecoded bytes (see verify.h for the order).
//
// Thread-safe: values only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/ed25519.h"
#include "core/result.h"

namespace ampoule::receipt {

// The payload type of every receipt (an in-toto Statement in JSON).
inline constexpr std::string_view kInTotoPayloadType = "application/vnd.in-toto+json";

// Named limits for untrusted envelopes. Each signature costs one Ed25519
// check per trusted key, so their number is capped.
inline constexpr size_t kMaxEnvelopeBytes = size_t{64} << 20;
inline constexpr size_t kMaxSignatures = 16;

struct EnvelopeSignature {
  std::string keyid;  // unauthenticated hint; empty if unset
  std::string sig;    // raw signature bytes (64 for Ed25519)
};

struct Envelope {
  std::string payload_type;
  std::string payload;  // raw bytes, base64-decoded
  std::vector<EnvelopeSignature> signatures;
};

// Parses an envelope from its JSON text. Returns an error (never throws,
// never crashes) for text over kMaxEnvelopeBytes, malformed or duplicate-key
// JSON, missing or mistyped required fields, bad base64, or more than
// kMaxSignatures signatures.
core::Result<Envelope> ParseEnvelope(std::string_view json_text);

// Returns the envelope as JSON (two-space indent, trailing newline), with
// payload and sigs in standard padded base64 and every keyid written.
std::string SerializeEnvelope(const Envelope& envelope);

// Appends a signature by `key` over PAE(payload_type, payload), with the
// key's KeyId() as the hint.
void AddSignature(Envelope& envelope, const core::ed25519::SecretKey& key);

// Returns an envelope holding `payload` with one signature by `key`.
Envelope SignEnvelope(std::string_view payload_type, std::string payload, const core::ed25519::SecretKey& key);

}  // namespace ampoule::receipt
