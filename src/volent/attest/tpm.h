// One TPM 2.0, through tpm2-tss (ESYS over a TCTI): PCRs, the attestation
// key, quotes and credential activation. docs/decisions/0038-tpm-through-tpm2-tss.md.
//
// The attestation key (AK) is a primary key of the endorsement hierarchy
// made from a fixed template (tpm.cc, AkTemplate): ECC NIST P-256,
// ECDSA-SHA256, restricted signing, fixedTPM|fixedParent, empty auth. A
// primary key is derived from the hierarchy's seed and the template, so the
// same TPM gives the same AK every time: nothing is stored on disk or in the
// TPM's NV, and the AK changes only when the endorsement seed does (a TPM
// that is replaced, never a TPM2_Clear). The endorsement key (EK) is made
// the same way from the TCG default ECC template (EK Credential Profile,
// template L-2), so it matches the EK certificate a manufacturer issues.
//
// Only the sha256 PCR bank is used, PCRs 0..23 (quote.h). Every TPM error
// names the command and the TPM's own reason (Tss2_RC_Decode).
//
// Thread-compatible: one thread at a time per Tpm. Two Tpm objects may use
// one TPM through a resource manager (/dev/tpmrm0, tabrmd); through a raw
// device or a simulator only one client may be connected.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "volent/attest/quote.h"

struct ESYS_CONTEXT;
struct TSS2_TCTI_OPAQUE_CONTEXT_BLOB;

namespace volent::attest {

using core::Result;
using core::Status;

// The attestation key as a verifier needs it.
struct AttestationKey {
  std::string public_area;  // marshaled TPM2B_PUBLIC
  std::string pem;          // SubjectPublicKeyInfo PEM
  std::string name;         // the TPM's name of it: 0x000b || SHA-256(TPMT_PUBLIC)
};

// A credential made for one AK name under one EK (TPM2_MakeCredential):
// only the TPM holding that EK, with a key of that name loaded, recovers it.
struct TpmCredential {
  std::string blob;    // marshaled TPM2B_ID_OBJECT
  std::string secret;  // marshaled TPM2B_ENCRYPTED_SECRET
};

// The longest credential: a digest of the EK's nameAlg (SHA-256).
inline constexpr size_t kMaxCredentialBytes = 32;

class Tpm {
 public:
  // Connects through `tcti`, a TCTI configuration as tctildr takes it
  // ("device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321", "tabrmd"); ""
  // is tctildr's default search. Sends TPM2_Startup if the TPM was never
  // started (a simulator). Errors (kUnavailable) say what was tried and why
  // it failed.
  static Result<std::unique_ptr<Tpm>> Open(std::string_view tcti);
  ~Tpm();
  Tpm(const Tpm&) = delete;
  Tpm& operator=(const Tpm&) = delete;

  // The sha256 values of `indexes` (each < kPcrCount, not empty), in
  // ascending index order, repeats dropped.
  Result<std::vector<PcrValue>> ReadPcrs(std::span<const uint32_t> indexes);

  // Extends the sha256 bank of PCR `pcr` with `digest`: new = SHA-256(old ||
  // digest). The other banks are left alone. PCRs 0..15 and 23 take an
  // extend from software (locality 0); 16..22 may refuse it.
  Status Extend(uint32_t pcr, const std::array<uint8_t, 32>& digest);

  // The AK's public part (the AK is made on first use and kept loaded
  // until the Tpm is destroyed).
  Result<AttestationKey> Ak();

  // A quote of `indexes` (each < kPcrCount, not empty) signed by the AK,
  // with `nonce` (1..kMaxQuoteNonceBytes bytes) as qualifyingData. The values are
  // read right after the quote and checked against its digest; a PCR
  // extended in between means quoting again, and an error after 3 tries.
  Result<attest::Quote> Quote(std::span<const uint32_t> indexes, std::string_view nonce);

  // Credential activation: the proof that the AK lives in the same TPM as
  // the EK. The verifier makes a credential for the AK's name under the EK
  // (MakeCredential, on any TPM: it uses only the EK's public part); the
  // node recovers it with ActivateCredential only if both keys are its own.
  //
  // The EK's public area (marshaled TPM2B_PUBLIC).
  Result<std::string> EndorsementKeyPublic();
  // Makes a credential holding `secret` (1..kMaxCredentialBytes bytes) for
  // the key named `ak_name` under the EK `ek_public` (marshaled
  // TPM2B_PUBLIC), using this TPM only as a calculator.
  Result<TpmCredential> MakeCredential(std::string_view ek_public, std::string_view ak_name, std::string_view secret);
  // The secret inside `credential`; an error if it was not made for this
  // TPM's EK and AK.
  Result<std::string> ActivateCredential(const TpmCredential& credential);

 private:
  Tpm(ESYS_CONTEXT* esys, TSS2_TCTI_OPAQUE_CONTEXT_BLOB* tcti);
  Status EnsureAk();
  Status EnsureEk();

  ESYS_CONTEXT* esys_;
  TSS2_TCTI_OPAQUE_CONTEXT_BLOB* tcti_;
  uint32_t ak_;  // ESYS_TR of the loaded AK, or ESYS_TR_NONE
  uint32_t ek_;  // ESYS_TR of the loaded EK, or ESYS_TR_NONE
  std::string ak_public_;
  std::string ek_public_;
};

}  // namespace volent::attest
