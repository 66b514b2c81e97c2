// What a TPM quote is, as bytes a verifier can take off the node.
//
// A Quote holds the TPM's own structures in their marshaled (TPM wire)
// form, exactly as the TPM produced and signed them, so that any TPM 2.0
// verifier (quote_verify.h, tpm2_checkquote) reads them without this code:
// nothing is re-encoded between the TPM and the signature check. Only the
// sha256 PCR bank is used.
//
// Plain data: no TPM, no I/O. Thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace volent::attest {

// PCR indexes 0..23: the PC Client platform's PCRs, the ones every TPM 2.0
// has (a selection of 3 bytes).
inline constexpr uint32_t kPcrCount = 24;

// The longest nonce a quote takes. The TPM's qualifyingData (TPM2B_DATA)
// holds sizeof(TPMT_HA): 2 + the largest digest the TPM implements, which is
// 34 bytes on a TPM whose largest hash is SHA-256, 50 with SHA-384. 32 bytes
// (a SHA-256 digest) fit every TPM that has a sha256 bank; a verifier with a
// longer challenge sends its SHA-256.
inline constexpr size_t kMaxQuoteNonceBytes = 32;

// One PCR of the sha256 bank.
struct PcrValue {
  uint32_t index = 0;
  std::array<uint8_t, 32> sha256{};
  bool operator==(const PcrValue&) const = default;
};

struct Quote {
  std::string attest;      // marshaled TPMS_ATTEST (the TPM2B_ATTEST's buffer): what was signed
  std::string signature;   // marshaled TPMT_SIGNATURE (ECDSA P-256, SHA-256)
  std::string ak_public;   // marshaled TPM2B_PUBLIC of the attestation key that signed
  std::vector<PcrValue> pcrs;  // the quoted PCRs, ascending index: the order the TPM digests them
};

}  // namespace volent::attest
