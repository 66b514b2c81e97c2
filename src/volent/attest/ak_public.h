// The public part of an attestation key (AK), read from the TPM's own
// encoding (a marshaled TPM2B_PUBLIC), with no TPM.
//
// An AK is acceptable when its public area says it is a restricted signing
// key made in its TPM and unable to leave it (restricted|sign|fixedTPM|
// fixedParent|sensitiveDataOrigin, not decrypt) and is ECC NIST P-256 with
// ECDSA-SHA256 and nameAlg SHA-256.
// "Restricted" is what makes a quote worth anything: a restricted key signs
// only digests the TPM computed itself, so it cannot sign a forged
// TPMS_ATTEST. These bits are what the public area claims, though: a
// software key can claim them. Only credential activation (tpm.h) or a
// pinned AK name proves the key really lives in a TPM.
//
// Thread-safe: no state. No I/O.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace volent::attest {

using core::Result;

struct AkPublic {
  // The TPM name: nameAlg (2 bytes, big-endian) || SHA-256 of the
  // marshaled TPMT_PUBLIC. What TPM2_MakeCredential binds to, and what a
  // verifier pins. Empty when nameAlg is not SHA-256 (then not an AK).
  std::string name;
  // The key as SubjectPublicKeyInfo PEM; empty unless it is an ECC P-256
  // key with a point on the curve.
  std::string pem;
  // Empty when the attributes are those of a TPM-resident restricted
  // signing key; else which attribute is wrong.
  std::string attribute_fault;
  // Empty when it is ECC P-256, ECDSA-SHA256, nameAlg SHA-256 (and `pem` is
  // set); else what differs.
  std::string algorithm_fault;

  bool acceptable() const { return attribute_fault.empty() && algorithm_fault.empty(); }
};

// Reads `tpm2b_public` (marshaled TPM2B_PUBLIC). Errors (kInvalidArgument)
// only when the bytes do not decode as one TPM2B_PUBLIC with nothing after
// it; a well-formed key of the wrong kind is a result with its faults set.
Result<AkPublic> ParseAkPublic(std::string_view tpm2b_public);

}  // namespace volent::attest
