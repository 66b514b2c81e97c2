#include "volent/attest/attestor.h"

#include <ctime>

#include "core/file_read.h"
#include "core/hex.h"
#include "core/rfc3339.h"
#include "core/sha256.h"
#include "volent/attest/event_log.h"
#include "volent/attest/platform_facts.h"
#include "volent/attest/process_facts.h"
#include "volent/attest/report.h"
#include "volent/attest/tpm_section.h"
#include "volent/attest/uefi_evidence.h"

namespace volent::attest {
namespace {

using core::Error;
using core::ErrorKind;

constexpr char kPcrLogFile[] = "attestation-pcr-log.json";
constexpr size_t kMaxEventLogBytes = size_t{4} << 20;

// The TPM volent.yaml's attestation.tpm names. "default" is the kernel's
// devices only, the resource manager first: tctildr's own default search
// would also try simulators on loopback ports, and the node opens no
// connection it was not told to.
Result<std::unique_ptr<Tpm>> OpenTpm(const std::string& tpm) {
  if (tpm != "default") return Tpm::Open(tpm);
  auto managed = Tpm::Open("device:/dev/tpmrm0");
  if (managed) return managed;
  auto raw = Tpm::Open("device:/dev/tpm0");
  if (raw) return raw;
  return Error{"no TPM device (" + managed.message() + "; " + raw.message() + ")", ErrorKind::kUnavailable};
}

}  // namespace

// verity-only is what PID 1's record and the kernel's verity table show;
// the event log (replayed against the quote by the verifier) can show more.
// The Secure Boot keys' provenance comes from the log on any host: the
// verifier reads it there too and holds the report to it.
void Attestor::UpgradeToMeasuredProfile() {
  if (event_log_.empty()) return;
  auto replay = ReplayEventLog(event_log_);
  if (!replay) return;
  const UefiEvidence evidence = ReadUefiEvidence(replay->extended);
  if (evidence.secure_boot_keys) secure_boot_keys_ = *evidence.secure_boot_keys;
  if (boot_.profile != "verity-only" || !boot_.verity_roothash.is_string()) return;
  auto cmdline = core::ReadFileCapped(options_.cmdline_path, 8192, nullptr, {.from = core::PathFrom::kUntrusted});
  if (!cmdline) return;
  std::string line = *cmdline;
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  const std::string roothash = boot_.verity_roothash.get<std::string>();
  if (ShowsFullChain(evidence, line, roothash, nullptr)) {
    boot_.profile = "full-chain";
  } else if (ShowsShimChain(evidence, line, roothash, nullptr)) {
    boot_.profile = "shim-chain";
  }
}

core::Result<std::unique_ptr<Attestor>> Attestor::Start(AttestorOptions options) {
  std::unique_ptr<Attestor> a(new Attestor(std::move(options)));
  const AttestorOptions& o = a->options_;
  a->secure_boot_ = SecureBootState(o.efi_dir, o.efi_dir + "/efivars");
  a->boot_ = ReadBootFacts(o.boot);
  if (!o.trust.is_object()) return Error{"no trust configuration to measure (AttestorOptions::trust)"};
  a->allowlist_ = o.allowlist.is_array() ? o.allowlist : nlohmann::json::array();
  a->trust_ = o.trust;
  auto own = OwnBinarySha256();
  if (!own) return own.error();
  a->volent_sha256_ = *own;
  a->kernel_sha256_ = nullptr;
  if (!o.kernel_path.empty()) {
    auto kernel = core::ReadFileCapped(o.kernel_path, size_t{256} << 20);
    if (kernel) a->kernel_sha256_ = core::Sha256Hex(*kernel);
  }
  auto event_log = core::ReadFileCapped(o.event_log_path, kMaxEventLogBytes, nullptr,
                                                 {.from = core::PathFrom::kUntrusted});
  if (event_log) {
    a->event_log_ = std::move(*event_log);
  } else {
    a->event_log_reason_ = "the platform's event log cannot be read: " + event_log.message();
  }
  a->UpgradeToMeasuredProfile();

  if (o.tpm == "none") {
    a->no_tpm_reason_ = "attestation.tpm is \"none\" in volent.yaml";
    return a;
  }
  auto tpm = OpenTpm(o.tpm);
  if (!tpm) {
    a->no_tpm_reason_ = "no TPM could be used (" + tpm.message() + ")";
    return a;
  }
  auto boot_id = BootId();
  if (!boot_id) return boot_id.error();
  StartDocuments start;
  start.volent_sha256 = a->volent_sha256_;
  start.allowlist = a->allowlist_;
  start.trust = a->trust_;
  if (a->kernel_sha256_.is_string()) start.kernel_sha256 = a->kernel_sha256_.get<std::string>();
  auto log = MeasureNode(**tpm, o.pcr, o.measure ? &start : nullptr, o.data_dir + "/" + kPcrLogFile, *boot_id);
  if (!log) return core::Error{"cannot measure the node into PCR " + std::to_string(o.pcr) + ": " + log.message()};
  if (!o.measure) {
    // `volent attest`: what the node measured at its last start is what it runs.
    if (auto starts = SplitStarts(*log); starts) {
      a->volent_sha256_ = starts->back().volent_sha256;
      a->kernel_sha256_ = starts->back().kernel_sha256.empty() ? nlohmann::json(nullptr)
                                                               : nlohmann::json(starts->back().kernel_sha256);
      a->allowlist_ = starts->back().allowlist;
      a->trust_ = starts->back().trust;
    }
  }
  a->log_ = std::move(*log);
  return a;
}

core::Result<std::string> Attestor::ActivateCredential(std::string_view credential) {
  if (!no_tpm_reason_.empty()) return Error{"this node has no TPM: " + no_tpm_reason_, ErrorKind::kUnavailable};
  // tpm2-tools' credential file: 0xbadcc0de, version 1 (big-endian), then
  // the TPM2B_ID_OBJECT (a 2-byte size and the blob) and the rest, the
  // TPM2B_ENCRYPTED_SECRET, as the TPM marshals them.
  static constexpr std::string_view kHeader("\xba\xdc\xc0\xde\x00\x00\x00\x01", 8);
  if (credential.size() < 12 || credential.substr(0, 8) != kHeader) {
    return Error{"not a credential file (tpm2_makecredential's format: 0xbadcc0de, version 1)",
                 ErrorKind::kInvalidArgument};
  }
  const size_t blob = 2 + (static_cast<uint8_t>(credential[8]) << 8 | static_cast<uint8_t>(credential[9]));
  if (8 + blob + 2 > credential.size()) return Error{"the credential file is truncated", ErrorKind::kInvalidArgument};
  std::lock_guard<std::mutex> lock(tpm_mu_);
  auto tpm = OpenTpm(options_.tpm);
  if (!tpm) return Error{"the TPM cannot be used now: " + tpm.message(), ErrorKind::kUnavailable};
  auto secret = (*tpm)->ActivateCredential(
      TpmCredential{std::string(credential.substr(8, blob)), std::string(credential.substr(8 + blob))});
  if (!secret) {
    return Error{"the TPM refused the credential (not made for this node's EK and AK name): " + secret.message(),
                 ErrorKind::kConflict};
  }
  return secret;
}

core::Result<std::string> Attestor::Report(const std::string& nonce_hex) {
  const AttestorOptions& o = options_;
  ReportFacts facts;
  facts.nonce_hex = nonce_hex;
  if (!core::IsLowerHex(nonce_hex, nonce_hex.size() / 2) || nonce_hex.empty() || nonce_hex.size() % 2 ||
      nonce_hex.size() > 2 * kMaxNonceBytes) {
    return Error{"the nonce must be 1 to " + std::to_string(kMaxNonceBytes) + " bytes in lowercase hex (2 to " +
                     std::to_string(2 * kMaxNonceBytes) + " digits)",
                 ErrorKind::kInvalidArgument};
  }
  CORE_RETURN_IF_ERROR(MaySign(o.key_provenance, o.release_shaped));
  facts.time = core::Rfc3339Millis(core::UnixMillisNow());
  facts.boot_profile = boot_.profile;  // verity-only only from the sealed image's own PID 1
  facts.secure_boot = secure_boot_;
  if (!secure_boot_keys_.empty()) facts.secure_boot_keys = secure_boot_keys_;
  facts.verity_roothash = boot_.verity_roothash;
  if (auto off = core::ReadFileCapped(o.modules_disabled_path, 16, nullptr, {.from = core::PathFrom::kUntrusted})) {
    facts.modules_disabled = *off == "1\n";
  }
  facts.key_provenance = o.key_provenance;
  facts.volent_sha256 = volent_sha256_;
  facts.kernel_sha256 = kernel_sha256_;
  facts.allowlist = allowlist_;
  facts.trust = trust_;
  // Read at each report: what the process may do now, not at start.
  if (auto process = ReadProcessFacts(); process.ok()) facts.process = ProcessFactsJson(*process);
  auto journal = o.journal_digest ? o.journal_digest() : core::Result<std::pair<uint64_t, std::string>>(
                                                             Error{"no journal"});
  if (!journal) return Error{"the journal's digest cannot be read: " + journal.message(), ErrorKind::kUnavailable};
  facts.journal_entries = journal->first;
  facts.journal_head = journal->second;

  if (!no_tpm_reason_.empty()) {
    facts.tpm = NoTpmSection(no_tpm_reason_);
  } else {
    std::lock_guard<std::mutex> lock(tpm_mu_);
    auto tpm = OpenTpm(o.tpm);
    if (!tpm) return Error{"the TPM used at start cannot be used now: " + tpm.message(), ErrorKind::kUnavailable};
    auto nonce = core::HexDecode(nonce_hex, "nonce");
    auto section = TpmSection(**tpm, *nonce, log_, event_log_, event_log_reason_);
    if (!section) return Error{"the TPM quote failed: " + section.message(), ErrorKind::kUnavailable};
    facts.tpm = std::move(*section);
  }
  return SignReport(facts, *o.key, o.release_shaped);
}

}  // namespace volent::attest
