// The node's attestation report (docs/attestation.md): a DSSE envelope, the
// same key machinery as Ampoule's receipts, around an in-toto Statement v1
// whose subject is the node's own binary and whose predicate
// (kNodePredicateType) says what the node started with and what it allows.
//
// This file only assembles and signs what the caller gathered (platform_facts.h reads
// the platform, tpm.h the TPM, the node its journal and configuration); it
// reads nothing itself and never fills in a value it was not given: a
// missing fact is null with the reason, never a guess.
//
// Thread-safe: values only.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/ed25519.h"
#include "core/result.h"

namespace volent::attest {

// v2: the node's PCR events bind their kinds and form starts (node_pcr.h),
// and the report carries the trust configuration (trust.h). A v1 report
// (an older node) is refused by the verifier, with that reason.
inline constexpr std::string_view kNodePredicateType = "https://volent.dev/attestations/node/v2";
inline constexpr std::string_view kNodePredicateTypeV1 = "https://volent.dev/attestations/node/v1";

// The longest nonce a verifier may send (hex digits): 32 bytes, the size of
// the TPM's qualifyingData for a SHA-256 key.
inline constexpr size_t kMaxNonceBytes = 32;

// What a report states, each field as docs/attestation.md names it.
struct ReportFacts {
  std::string nonce_hex;          // the verifier's nonce, lowercase hex (1 to kMaxNonceBytes bytes)
  std::string time;               // RFC 3339 UTC, when the report was made
  std::string boot_profile;       // full-chain, shim-chain, verity-only or unsealed
  std::string secure_boot;        // enabled, disabled, not-efi or unknown
  nlohmann::json verity_roothash; // hex string, or null when the root is not a verity image
  nlohmann::json modules_disabled = nullptr;  // kernel.modules_disabled: true, false, or null (unreadable)
  nlohmann::json secure_boot_keys = nullptr;  // "dev-only" or "not-dev-only" from the event log (uefi_evidence.h), or null
  std::string key_provenance;     // dev-only or production
  std::string volent_sha256;      // the running binary
  nlohmann::json kernel_sha256;   // the Ampoule kernel sealed tools run on, or null
  nlohmann::json allowlist;       // volent.yaml egress.allow as written (an array)
  nlohmann::json trust;           // the trust configuration (trust.h TrustDocument), an object
  uint64_t journal_entries = 0;
  std::string journal_head;       // "sha256:HEX"
  nlohmann::json tpm;             // {"present": false, "reason": ...} or the TPM section (tpm_section.h)
  nlohmann::json process;         // ProcessFactsJson (process_facts.h): uid, capabilities, no_new_privs, seccomp; or null
};

// SHA-256 (hex) of the allowlist's canonical JSON: what the report and a
// policy compare (node_pcr.h DocumentDigest).
std::string AllowlistDigest(const nlohmann::json& allowlist);

// Whether a build may sign with a key of `provenance`. A release-shaped
// build (VOLENT_RELEASE_SHAPED) fails closed on a dev-only key: an image
// made for production must not vouch for itself with a key anyone could
// have made. The error says so.
core::Status MaySign(std::string_view provenance, bool release_shaped);

// The signed report (the envelope's JSON text), or MaySign's refusal, or an
// error for a fact out of its domain (a nonce that is not hex, an unknown
// profile).
core::Result<std::string> SignReport(const ReportFacts& facts, const core::ed25519::SecretKey& key,
                                        bool release_shaped);

// The predicate alone (the statement's "predicate"), as SignReport writes it.
nlohmann::json ReportPredicate(const ReportFacts& facts, const core::ed25519::PublicKey& signer);

}  // namespace volent::attest
