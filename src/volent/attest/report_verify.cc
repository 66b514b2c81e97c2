#include "volent/attest/report_verify.h"

#include <algorithm>
#include <ctime>
#include <map>

#include "ampoule/receipt/verify.h"
#include "core/hex.h"
#include "volent/attest/event_log.h"
#include "volent/attest/uefi_evidence.h"
#include "volent/attest/quote_verify.h"
#include "volent/attest/report.h"
#include "volent/attest/tpm_section.h"
#include "volent/attest/trust.h"

namespace volent::attest {
namespace {

using nlohmann::json;

// Seconds a report's time may run ahead of the verifier's clock.
constexpr int64_t kClockSkewSeconds = 60;

// "2026-12-02T22:41:22.123Z" as Unix seconds, or -1.
int64_t ParseTime(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) return -1;
  if (*end == '.') {
    ++end;
    while (*end >= '0' && *end <= '9') ++end;
  }
  if (std::string(end) != "Z") return -1;
  return timegm(&tm);
}

std::string Str(const json& value, const json::json_pointer& at) {
  return value.contains(at) && value.at(at).is_string() ? value.at(at).get<std::string>() : std::string();
}

std::string Hex(const std::array<uint8_t, 32>& digest) { return core::HexEncode(std::span(digest)); }

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool EntryIn(const json& entry, const json& list) {
  return std::any_of(list.begin(), list.end(), [&](const json& e) { return e == entry; });
}

class Checker {
 public:
  explicit Checker(Verdict& verdict) : verdict_(verdict) {}
  void Checked(const std::string& claim) { verdict_.checked.push_back(claim); }
  void Fail(const std::string& claim, const std::string& why) { verdict_.failed.push_back({claim, why}); }

 private:
  Verdict& verdict_;
};

// The TPM claims; the node's starts in this boot when the quote holds and
// the log replays to it and reads as whole starts, else null.
// `uefi`: what the event log shows of the boot, when the quote vouches for it.
std::optional<std::vector<NodeStart>> CheckTpm(Checker& c, const Policy& policy, const json& tpm, const std::string& nonce,
                                               std::optional<UefiEvidence>& uefi) {
  c.Checked("tpm");
  const bool present = tpm.is_object() && tpm.contains("present") && tpm["present"] == true;
  if (!present) {
    if (policy.tpm_required) {
      const std::string reason = Str(tpm, json::json_pointer("/reason"));
      c.Fail("tpm", "the report has no TPM quote (" + (reason.empty() ? "no reason given" : reason) +
                        "); the policy requires one");
    }
    return std::nullopt;
  }
  auto evidence = ReadTpmSection(tpm);
  if (!evidence) {
    c.Fail("tpm", evidence.message());
    return std::nullopt;
  }
  c.Checked("tpm.quote");
  bool quote_ok = true;
  for (const Problem& p : VerifyQuote(evidence->quote, nonce, evidence->ak_name)) {
    c.Fail("tpm.quote", std::string(ProblemName(p.kind)) + ": " + p.detail);
    quote_ok = false;
  }
  // The report names its AK, and the quote was checked against that name;
  // an enrolled AK (credential activation) is what makes it this TPM's.
  const std::string ak_name = core::HexEncode(evidence->ak_name);
  if (!policy.tpm_ak_names.empty() && !Contains(policy.tpm_ak_names, ak_name)) {
    c.Fail("tpm.quote", "ak_not_expected: the quote is signed by AK " + ak_name + ", not one the policy enrolled");
    quote_ok = false;
  }
  std::map<uint32_t, std::array<uint8_t, 32>> quoted;
  for (const PcrValue& v : evidence->quote.pcrs) quoted[v.index] = v.sha256;

  c.Checked("tpm.node_pcr");
  const NodePcrLog& log = evidence->node_log;
  std::optional<std::vector<NodeStart>> starts;
  if (log.prior_unknown) {
    c.Fail("tpm.node_pcr", "PCR " + std::to_string(log.pcr) +
                               " held extends the node could not account for when it started");
  } else if (!quoted.count(log.pcr)) {
    c.Fail("tpm.node_pcr", "the node's PCR " + std::to_string(log.pcr) + " is not in the quote");
  } else if (ReplayNodeEvents(log.events) != quoted[log.pcr]) {
    c.Fail("tpm.node_pcr", "the node's " + std::to_string(log.events.size()) + " events replay to " +
                               Hex(ReplayNodeEvents(log.events)) + ", the quote has PCR " +
                               std::to_string(log.pcr) + " = " + Hex(quoted[log.pcr]) +
                               " (an event relabelled, left out, or extended by another program)");
  } else if (auto split = SplitStarts(log); !split) {
    c.Fail("tpm.node_pcr", split.message());
  } else {
    starts = std::move(*split);
  }
  if (!evidence->event_log.empty()) {
    // The firmware's and boot loaders' own account of PCRs 0-14: each PCR it
    // extends must end where the quote says.
    c.Checked("tpm.event_log");
    auto replay = ReplayEventLog(evidence->event_log);
    if (!replay) {
      c.Fail("tpm.event_log", replay.message());
    } else {
      bool agrees = true;
      for (const auto& [index, value] : replay->pcrs) {
        if (!quoted.count(index)) continue;  // a PCR the quote does not cover (16-23)
        if (quoted[index] != value) {
          agrees = false;
          c.Fail("tpm.event_log", "the log's events replay PCR " + std::to_string(index) + " to " + Hex(value) +
                                      ", the quote has " + Hex(quoted[index]));
        }
      }
      // Only a log the quote vouches for says how the machine booted.
      if (agrees && quote_ok) uefi = ReadUefiEvidence(replay->extended);
    }
  }

  for (const auto& [index, allowed] : policy.pcrs) {
    const std::string claim = "pcrs." + std::to_string(index);
    c.Checked(claim);
    if (!quoted.count(index)) {
      c.Fail(claim, "PCR " + std::to_string(index) + " is not in the quote");
    } else if (!Contains(allowed, Hex(quoted[index]))) {
      c.Fail(claim, "PCR " + std::to_string(index) + " is " + Hex(quoted[index]) +
                        ", not a value the policy allows");
    }
  }
  if (!quote_ok) return std::nullopt;  // nothing the quote should bind is bound
  return starts;
}

// What the node ran, judged against the policy: one start of this boot (from
// the PCR log), or, without a bound log, the report's own statement.
struct Ran {
  std::string where;  // "" for the report; "start N of M in this boot: " for a start
  std::string volent, kernel;
  json allowlist, trust;
};

void JudgeRan(Checker& c, const Policy& policy, const Ran& r) {
  if (!policy.volent_sha256.empty() && !Contains(policy.volent_sha256, r.volent)) {
    c.Fail("software.volent", r.where + "the node's binary " + r.volent + " is not one the policy allows");
  }
  if (!policy.kernel_sha256.empty() && !Contains(policy.kernel_sha256, r.kernel)) {
    c.Fail("software.ampoule_kernel", r.where + "the Ampoule kernel " + (r.kernel.empty() ? "(none)" : r.kernel) +
                                          " is not one the policy allows");
  }
  if (r.allowlist.is_array()) {
    if (policy.allowlist_equal && r.allowlist != *policy.allowlist_equal) {
      c.Fail("egress.allowlist", r.where + "the node's allowlist is not the policy's");
    }
    if (policy.allowlist_subset_of) {
      for (size_t i = 0; i < r.allowlist.size(); ++i) {
        if (!EntryIn(r.allowlist[i], *policy.allowlist_subset_of)) {
          c.Fail("egress.allowlist", r.where + "entry " + std::to_string(i) + " (capability " +
                                         Str(r.allowlist[i], json::json_pointer("/capability")) +
                                         ") is not one the policy allows");
        }
      }
    }
  } else if (policy.allowlist_equal || policy.allowlist_subset_of) {
    c.Fail("egress.allowlist", r.where + "the node's allowlist is not a list");
  }
  if (!policy.dns_server.empty()) {
    const std::string dns = Str(r.trust, json::json_pointer("/egress/dns_server"));
    if (dns != policy.dns_server) {
      c.Fail("egress.dns_server", r.where + "the node asks the DNS server " + (dns.empty() ? "(none stated)" : dns) +
                                      ", not the policy's " + policy.dns_server);
    }
  }
  if (!policy.trust_sha256.empty() && !Contains(policy.trust_sha256, DocumentDigest(r.trust))) {
    c.Fail("trust", r.where + "the node's trust configuration " + DocumentDigest(r.trust) +
                        " is not one the policy allows");
  }
}


}  // namespace

Verdict VerifyReport(std::string_view envelope, const Policy& policy, const std::string& nonce_hex, int64_t now_unix) {
  Verdict verdict;
  Checker c(verdict);
  c.Checked("signature");
  auto verified = ampoule::receipt::VerifyReceipt(envelope, policy.signers);
  if (!verified) {
    c.Fail("signature", verified.message() + " (the policy's signers are the node keys it trusts)");
    return verdict;  // nothing unsigned is read
  }
  const auto& st = verified->statement;
  c.Checked("statement");
  if (st.predicate_type == kNodePredicateTypeV1) {
    c.Fail("statement", "a report of the older format node/v1, whose PCR events do not bind their kinds and "
                        "which does not state where the node's requests go: it cannot be verified; upgrade the node");
    return verdict;
  }
  if (st.predicate_type != kNodePredicateType || st.subject.size() != 1 || !st.predicate.is_object()) {
    c.Fail("statement", "not a node attestation report (predicateType '" + st.predicate_type + "')");
    return verdict;
  }
  const json& p = st.predicate;

  // Freshness: the verifier's nonce, in the report and (below) in the quote.
  const std::string nonce = !nonce_hex.empty() ? nonce_hex : policy.nonce_hex;
  c.Checked("nonce");
  std::string nonce_bytes;
  if (nonce.empty()) {
    c.Fail("nonce", "no nonce to check (give --nonce, or \"nonce\" in the policy): the report could be a replay");
  } else if (Str(p, json::json_pointer("/nonce")) != nonce) {
    c.Fail("nonce", "the report was made for nonce " + Str(p, json::json_pointer("/nonce")) + ", not " + nonce);
  }
  if (auto raw = core::HexDecode(nonce, "nonce"); raw) nonce_bytes = *raw;
  if (policy.max_age_seconds) {
    c.Checked("time");
    const int64_t t = ParseTime(Str(p, json::json_pointer("/time")));
    if (t < 0) {
      c.Fail("time", "the report's time is not RFC 3339 UTC");
    } else if (now_unix - t > static_cast<int64_t>(*policy.max_age_seconds) || t - now_unix > kClockSkewSeconds) {
      c.Fail("time", "the report is from " + Str(p, json::json_pointer("/time")) + ", outside the policy's " +
                         std::to_string(*policy.max_age_seconds) + " s");
    }
  }

  std::optional<UefiEvidence> uefi;
  const std::optional<std::vector<NodeStart>> starts =
      CheckTpm(c, policy, p.contains("tpm") ? p["tpm"] : json(), nonce_bytes, uefi);

  // What the report says the node runs now; each value is recomputed where
  // it can be, then held against the node's last start when the log is bound.
  Ran reported;
  c.Checked("software.volent");
  reported.volent = st.subject[0].digest.count("sha256") ? st.subject[0].sha256() : "";
  if (Str(p, json::json_pointer("/software/volent/sha256")) != reported.volent) {
    c.Fail("software.volent", "the predicate's binary digest differs from the statement's subject");
  }
  reported.kernel = Str(p, json::json_pointer("/software/ampoule_kernel/sha256"));
  if (!policy.kernel_sha256.empty()) c.Checked("software.ampoule_kernel");
  c.Checked("egress.allowlist");
  const json::json_pointer allowlist_at("/egress/allowlist");
  reported.allowlist = p.contains(allowlist_at) ? p.at(allowlist_at) : json();
  if (!reported.allowlist.is_array()) {
    c.Fail("egress.allowlist", "the report has no allowlist");
  } else if (Str(p, json::json_pointer("/egress/sha256")) != AllowlistDigest(reported.allowlist)) {
    c.Fail("egress.allowlist", "the allowlist's digest is " + AllowlistDigest(reported.allowlist) +
                                   ", the report says " + Str(p, json::json_pointer("/egress/sha256")));
  }
  c.Checked("trust");
  const json::json_pointer trust_at("/trust/config");
  reported.trust = p.contains(trust_at) ? p.at(trust_at) : json();
  if (!reported.trust.is_object()) {
    c.Fail("trust", "the report has no trust configuration");
  } else if (Str(p, json::json_pointer("/trust/sha256")) != DocumentDigest(reported.trust)) {
    c.Fail("trust", "the trust configuration's digest is " + DocumentDigest(reported.trust) + ", the report says " +
                        Str(p, json::json_pointer("/trust/sha256")));
  }
  if (!policy.dns_server.empty()) c.Checked("egress.dns_server");

  if (!starts) {
    // No TPM (or a log that is not bound, which has failed above): the
    // node's signed statement is all there is.
    JudgeRan(c, policy, reported);
  } else {
    const NodeStart& last = starts->back();
    if (last.volent_sha256 != reported.volent) {
      c.Fail("software.volent", "the node measured volent-binary " + last.volent_sha256 +
                                    " at its last start but the report says " + reported.volent);
    }
    if (last.kernel_sha256 != reported.kernel) {
      c.Fail("software.ampoule_kernel", "the node measured ampoule-kernel " +
                                            (last.kernel_sha256.empty() ? "(none)" : last.kernel_sha256) +
                                            " at its last start but the report says " +
                                            (reported.kernel.empty() ? "(none)" : reported.kernel));
    }
    if (reported.allowlist.is_array() && last.allowlist_sha256 != AllowlistDigest(reported.allowlist)) {
      c.Fail("egress.allowlist", "the node measured egress-allowlist " + last.allowlist_sha256 +
                                     " at its last start but the report's allowlist is " +
                                     AllowlistDigest(reported.allowlist));
    }
    if (reported.trust.is_object() && last.trust_sha256 != DocumentDigest(reported.trust)) {
      c.Fail("trust", "the node measured node-trust " + last.trust_sha256 +
                          " at its last start but the report's trust configuration is " +
                          DocumentDigest(reported.trust));
    }
    for (size_t i = 0; i < starts->size(); ++i) {
      const NodeStart& s = (*starts)[i];
      Ran ran{starts->size() == 1 ? std::string()
                                  : "start " + std::to_string(i + 1) + " of " + std::to_string(starts->size()) +
                                        " in this boot: ",
              s.volent_sha256, s.kernel_sha256, s.allowlist, s.trust};
      JudgeRan(c, policy, ran);
    }
  }

  if (!policy.boot_profiles.empty()) {
    c.Checked("boot.profile");
    const std::string profile = Str(p, json::json_pointer("/boot/profile"));
    if (!Contains(policy.boot_profiles, profile)) {
      c.Fail("boot.profile", "the node booted " + (profile.empty() ? "(none)" : profile) +
                                 ", not a profile the policy allows");
    } else if (profile == "full-chain" && !(uefi && uefi->secure_boot_on && uefi->uki_cmdline)) {
      // The claim is the node's; the quoted event log must bear it out.
      c.Fail("boot.profile", uefi ? "the report says full-chain, but its quoted event log shows no Secure Boot "
                                    "and signed UKI (PCR 7 SecureBoot = 1, PCR 11's .cmdline)"
                                  : "the report says full-chain, but carries no event log the quote vouches for");
    } else if (profile == "shim-chain" && !(uefi && uefi->secure_boot_on && uefi->grub_kernel_cmdline)) {
      c.Fail("boot.profile", uefi ? "the report says shim-chain, but its quoted event log shows no Secure Boot "
                                    "and GRUB-measured command line (PCR 7 SecureBoot = 1, PCR 8's kernel_cmdline)"
                                  : "the report says shim-chain, but carries no event log the quote vouches for");
    }
  }
  if (policy.secure_boot_required) {
    c.Checked("boot.secure_boot");
    const std::string state = Str(p, json::json_pointer("/boot/secure_boot"));
    if (state != "enabled") c.Fail("boot.secure_boot", "Secure Boot is " + state + "; the policy requires it");
    if (!policy.pcrs.count(7)) {
      verdict.notes.push_back("boot.secure_boot is self-asserted: the node read it from a file a root user can "
                              "fake; pin PCR 7 (\"pcrs\") to have the TPM's quote prove it");
    }
  }
  // full-chain with PCR 11 pinned, shim-chain with PCR 8: the root hash is
  // in the command line those PCRs bind.
  const std::string claimed = Str(p, json::json_pointer("/boot/profile"));
  const bool roothash_quoted = uefi && ((claimed == "full-chain" && uefi->uki_cmdline && policy.pcrs.count(11)) ||
                                        (claimed == "shim-chain" && uefi->grub_kernel_cmdline && policy.pcrs.count(8)));
  if ((!policy.verity_roothash.empty() || Contains(policy.boot_profiles, "verity-only")) && !roothash_quoted) {
    verdict.notes.push_back("the verity profile and root hash are the node's reading of its kernel's device-mapper "
                            "table: true of the files the node runs from, not proved by the quote (only a measured "
                            "boot, full-chain, is)");
  }
  if (!policy.verity_roothash.empty()) {
    c.Checked("boot.verity_roothash");
    const std::string roothash = Str(p, json::json_pointer("/boot/verity_roothash"));
    if (roothash != policy.verity_roothash) {
      c.Fail("boot.verity_roothash", "the root's verity hash is " + (roothash.empty() ? "(none)" : roothash) +
                                         ", not the policy's");
    }
  }
  if (!policy.key_provenance.empty()) {
    c.Checked("key.provenance");
    const std::string provenance = Str(p, json::json_pointer("/key/provenance"));
    if (provenance != policy.key_provenance) {
      c.Fail("key.provenance", "the node's key is " + provenance + "; the policy requires " + policy.key_provenance);
    }
    // The Secure Boot keys, as the quoted log shows them (not the node's word).
    if (policy.key_provenance == "production" && uefi && uefi->secure_boot_keys == "dev-only") {
      c.Fail("key.provenance", "the firmware booted this machine with the image build's dev-only Secure Boot keys "
                               "(PCR 7's db authority); the policy requires production");
    }
  }
  // The report's word on the keys must not contradict the log (an older
  // node says nothing; the log is what counts either way).
  const json::json_pointer keys_at("/boot/secure_boot_keys");
  if (p.contains(keys_at) && !p.at(keys_at).is_null() &&
      (!uefi || !uefi->secure_boot_keys || p.at(keys_at) != *uefi->secure_boot_keys)) {
    c.Fail("boot.secure_boot_keys", "the report says " + p.at(keys_at).dump() + ", the quoted event log shows " +
                                        (uefi && uefi->secure_boot_keys ? *uefi->secure_boot_keys : "nothing"));
  }
  if (policy.journal_entries || !policy.journal_head.empty()) {
    c.Checked("journal");
    const json::json_pointer entries_at("/journal/entries");
    const json entries = p.contains(entries_at) ? p.at(entries_at) : json();
    if (policy.journal_entries && (!entries.is_number_unsigned() || entries.get<uint64_t>() != *policy.journal_entries)) {
      c.Fail("journal", "the journal has " + entries.dump() + " entries, the policy expects " +
                            std::to_string(*policy.journal_entries));
    }
    if (!policy.journal_head.empty() && Str(p, json::json_pointer("/journal/head")) != policy.journal_head) {
      c.Fail("journal", "the journal's head is " + Str(p, json::json_pointer("/journal/head")) +
                            ", the policy expects " + policy.journal_head);
    }
  }
  return verdict;
}

}  // namespace volent::attest
