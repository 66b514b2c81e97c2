// Verifying a receipt: signature first, meaning second.
//
// The order follows the DSSE protocol and is the point of this file:
//   1. parse the envelope (form only) and base64-decode payload and sigs;
//   2. check each signature over PAE(payloadType, payload) against the
//      trusted keys; pass if any one signature verifies under any one
//      trusted key;
//   3. only then check the payload type and parse the payload.
// No byte of the payload is interpreted before a trusted signature covers
// it. The keyid hint only decides which key is tried first: a signature
// verifies under a trusted key whatever its keyid says, and a keyid naming
// a trusted key proves nothing.
//
// Thread-safe: no state.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "core/ed25519.h"
#include "core/result.h"

namespace ampoule::receipt {

struct VerifiedEnvelope {
  std::string payload_type;
  std::string payload;     // the signed bytes, not yet parsed
  core::ed25519::PublicKey signer;        // the trusted key that verified
  size_t signature_index;  // which entry of "signatures" verified
};

// Checks `envelope`'s signatures against `trusted`. Returns the signed
// payload and the key that vouched for it, or an error if there are no
// trusted keys, no signatures, or no signature verifies under a trusted key.
core::Result<VerifiedEnvelope> VerifyEnvelope(const Envelope& envelope,
                                        std::span<const core::ed25519::PublicKey> trusted);

struct VerifiedReceipt {
  Statement statement;
  core::ed25519::PublicKey signer;
};

// The whole check for a receipt file's text: parse the envelope, verify it
// (above), require payloadType kInTotoPayloadType, parse the statement.
// Any error means the receipt must not be trusted (docs/cli.md "FAILED"); the
// message says which step failed.
core::Result<VerifiedReceipt> VerifyReceipt(std::string_view envelope_json,
                                      std::span<const core::ed25519::PublicKey> trusted);

}  // namespace ampoule::receipt
