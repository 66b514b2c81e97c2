// Checking a TPM quote off the node: pure functions, no TPM, no I/O.
//
// VerifyQuote answers one question: did a TPM-resident restricted signing
// key sign, fresh for this nonce, exactly these sha256 PCR values? It checks
//   - the AK public area (ak_public.h): restricted|sign|fixedTPM|fixedParent,
//     ECC P-256, ECDSA-SHA256 (and, when the caller pins one, its name);
//   - the signature over the attest bytes, under that key;
//   - the TPMS_ATTEST: TPM_GENERATED_VALUE, TPM_ST_ATTEST_QUOTE, signed by
//     that AK as a primary of the endorsement hierarchy, extraData equal to
//     the nonce, the selection equal to the reported indexes, and pcrDigest
//     equal to SHA-256 of the reported values in that order.
// What it cannot know: that the AK lives in a TPM (its attributes are
// self-asserted; pin the AK name, learned through credential activation,
// tpm.h), and what the PCR values mean (ReplayPcr checks an event list
// against them; the events themselves are only what the node says).
//
// Every input is untrusted: bytes of any length and content give problems,
// never a crash. Thread-safe: no state.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "volent/attest/quote.h"

namespace volent::attest {

using core::Result;

// Each thing that can be wrong with a quote. The names (ProblemName) are
// stable: reports and tests use them.
enum class QuoteProblem {
  kAkMalformed,              // "ak_malformed": ak_public does not decode
  kAkNotRestrictedSigning,   // "ak_not_restricted_signing": attributes of a key that could sign anything
  kAkAlgorithm,              // "ak_algorithm": not ECC P-256 with ECDSA-SHA256
  kAkNotExpected,            // "ak_not_expected": not the AK the verifier pinned
  kSignatureMalformed,       // "signature_malformed": does not decode, or not ECDSA-SHA256
  kSignatureInvalid,         // "signature_invalid": does not verify under the AK over the attest bytes
  kAttestMalformed,          // "attest_malformed": attest does not decode as one TPMS_ATTEST
  kNotTpmGenerated,          // "not_tpm_generated": magic is not TPM_GENERATED_VALUE
  kNotAQuote,                // "not_a_quote": type is not TPM_ST_ATTEST_QUOTE
  kSignerMismatch,           // "signer_mismatch": qualifiedSigner is not the AK under the endorsement hierarchy
  kNonceMismatch,            // "nonce_mismatch": extraData differs from the expected nonce
  kPcrListInvalid,           // "pcr_list_invalid": reported PCRs empty, unordered, repeated or out of range
  kPcrSelectionMismatch,     // "pcr_selection_mismatch": quoted selection differs from the reported indexes
  kPcrDigestMismatch,        // "pcr_digest_mismatch": reported values do not hash to the quoted digest
};

std::string_view ProblemName(QuoteProblem problem);

struct Problem {
  QuoteProblem kind;
  std::string detail;  // for people: what exactly differs
};

// Checks `quote` against the nonce the verifier sent, and, when
// `expected_ak_name` is not empty, against the AK name the verifier trusts
// (AkPublic::name). Returns every problem found; empty means the quote holds.
std::vector<Problem> VerifyQuote(const Quote& quote, std::string_view nonce, std::string_view expected_ak_name = {});

// What a quote's TPMS_ATTEST says.
struct QuoteAttest {
  std::string nonce;                   // extraData
  std::string qualified_signer;        // TPM2B_NAME bytes
  std::vector<uint32_t> pcr_indexes;   // sha256 bank, ascending; empty if another bank is selected
  bool other_banks = false;            // the selection names a bank other than sha256, or several
  std::string pcr_digest;              // as quoted (32 bytes for a SHA-256 AK)
  uint64_t clock = 0;                  // ms the TPM has been powered
  uint32_t reset_count = 0;            // TPM resets (reboots) since the last TPM2_Clear
  uint32_t restart_count = 0;
  uint64_t firmware_version = 0;
};

// Decodes a quote's attest bytes (marshaled TPMS_ATTEST) and checks they are
// a TPM-generated quote. Errors (kInvalidArgument) name what is wrong.
Result<QuoteAttest> ParseQuoteAttest(std::string_view attest);

// SHA-256 over the values in the given order: what a quote's pcrDigest is
// for these PCRs.
std::array<uint8_t, 32> PcrDigest(std::span<const PcrValue> pcrs);

// The value a sha256 PCR reaches from reset (32 zero bytes) after extending
// each measurement in order: v = SHA-256(v || measurement).
std::array<uint8_t, 32> ReplayPcr(std::span<const std::array<uint8_t, 32>> measurements);

// The qualified name of a primary key of the endorsement hierarchy whose
// name is `name`: 0x000b || SHA-256(TPM_RH_ENDORSEMENT || name).
std::string EndorsementQualifiedName(std::string_view name);

}  // namespace volent::attest
