// The node's attestation, start to report (docs/attestation.md).
//
// At the node's start (Attestor::Start with measure = true) the facts that do
// not change while it runs are read once: the Secure Boot state, the boot
// profile (from the kernel, platform_facts.h), the digests of its binary and
// of the Ampoule kernel, the allowlist and the trust configuration
// (trust.h); and, when there is a TPM, the node extends its PCR with one
// start of them (node_pcr.h). Each Report then adds what changes (the time,
// the journal's digest, a fresh quote for the verifier's nonce) and signs.
// `volent attest` on the node's host makes the same report with measure =
// false: it reads the PCR log the node kept instead of extending again, and
// reports the allowlist and trust configuration of the node's last start
// as the log holds them (what the node runs, even if volent.yaml changed).
//
// The TPM is opened for each quote and closed after it: a software TPM or a
// raw device takes one client at a time, and `volent attest` may need it
// while the node runs.
//
// Thread-safe: Report may be called from many threads (quotes are
// serialized).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "core/ed25519.h"
#include "core/result.h"
#include "volent/attest/node_pcr.h"
#include "volent/attest/platform_facts.h"

namespace volent::attest {

// Whether this build is release-shaped (VOLENT_RELEASE_SHAPED at configure
// time): it then refuses to sign with a dev-only key (report.h, MaySign).
#ifdef VOLENT_RELEASE_SHAPED
inline constexpr bool kReleaseShaped = VOLENT_RELEASE_SHAPED;
#else
inline constexpr bool kReleaseShaped = false;
#endif

struct AttestorOptions {
  std::string tpm = "default";          // volent.yaml attestation.tpm
  uint32_t pcr = 15;                    // attestation.pcr
  std::string key_provenance;           // dev-only or production
  std::shared_ptr<const core::ed25519::SecretKey> key;
  nlohmann::json allowlist;             // egress.allow as written (an array)
  nlohmann::json trust;                 // the trust configuration (trust.h TrustDocument), an object
  std::string kernel_path;              // the Ampoule kernel; "" or missing: none
  std::string data_dir;                 // where the PCR log is kept
  bool measure = true;                  // extend the PCR (the node) or only read the log (volent attest)
  bool release_shaped = kReleaseShaped;
  // The journal's digest now: {entries, "sha256:HEX"}.
  std::function<core::Result<std::pair<uint64_t, std::string>>()> journal_digest;
  // Test seams: the platform's paths.
  std::string efi_dir = "/sys/firmware/efi";
  BootSources boot;                     // platform_facts.h ReadBootFacts
  std::string event_log_path = "/sys/kernel/security/tpm0/binary_bios_measurements";
  // The kernel's command line (full-chain: the signed UKI's, uefi_evidence.h)
  // and whether module loading is off for this boot.
  std::string cmdline_path = "/proc/cmdline";
  std::string modules_disabled_path = "/proc/sys/kernel/modules_disabled";
};

class Attestor {
 public:
  // Reads the facts and, with a TPM and `measure`, extends the node's PCR.
  // A TPM that cannot be used is not an error: the reports then say there
  // is none, and why. Errors: the node's own binary cannot be read, the
  // PCR log cannot be written, no trust configuration was given.
  static core::Result<std::unique_ptr<Attestor>> Start(AttestorOptions options);

  // A signed report for `nonce_hex` (the envelope's JSON text). Errors:
  // kInvalidArgument for a bad nonce, kConflict when this build refuses
  // to sign with a dev-only key, kUnavailable when the TPM that was there
  // at start fails now.
  core::Result<std::string> Report(const std::string& nonce_hex);

  // Credential activation: `credential` is a credential made for this
  // node's AK under its EK, in tpm2-tools' file format (tpm2_makecredential:
  // magic 0xbadcc0de, version 1, TPM2B_ID_OBJECT, TPM2B_ENCRYPTED_SECRET);
  // the secret inside it. Errors: kInvalidArgument for a malformed file,
  // kConflict when the TPM refuses it (not made for this EK and AK),
  // kUnavailable without a TPM.
  core::Result<std::string> ActivateCredential(std::string_view credential);

  // Why the reports carry no quote ("" when they do).
  const std::string& no_tpm_reason() const { return no_tpm_reason_; }
  // How the machine booted (the report's boot section).
  const BootFacts& boot() const { return boot_; }

 private:
  void UpgradeToMeasuredProfile();
  explicit Attestor(AttestorOptions options) : options_(std::move(options)) {}

  AttestorOptions options_;
  std::string secure_boot_;
  std::string secure_boot_keys_;  // "", dev-only or not-dev-only (uefi_evidence.h)
  BootFacts boot_;
  std::string volent_sha256_;
  nlohmann::json kernel_sha256_;
  NodePcrLog log_;
  nlohmann::json allowlist_, trust_;  // what the reports say the node runs
  std::string no_tpm_reason_;
  std::string event_log_;
  std::string event_log_reason_;
  std::mutex tpm_mu_;
};

}  // namespace volent::attest
