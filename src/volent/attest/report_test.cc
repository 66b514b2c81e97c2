// The report and its check without a TPM: signing, the release build's
// refusal of a dev-only key, the policy's strict reading, and claims that
// fail one at a time when a report is altered and signed again by the
// node's own key (what an attacker who stole it could do).
#include "volent/attest/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "core/base64.h"
#include "core/hex.h"
#include "core/sha256.h"
#include "volent/attest/attestor.h"
#include "volent/attest/event_log.h"
#include "volent/attest/policy.h"
#include "volent/attest/quote_verify.h"
#include "volent/attest/report_verify.h"
#include "volent/attest/swtpm_testing.h"
#include "volent/attest/tpm_section.h"
#include "volent/attest/trust.h"

namespace volent::attest {
namespace {

namespace rc = ampoule::receipt;
using nlohmann::json;

const core::ed25519::SecretKey& NodeKey() {
  static const core::ed25519::SecretKey key = core::ed25519::SecretKey::FromSeed(std::string(32, '\x05')).value();
  return key;
}

ReportFacts Facts() {
  ReportFacts f;
  f.nonce_hex = "00ff";
  f.time = "2026-12-02T10:00:00.000Z";
  f.boot_profile = "unsealed";
  f.secure_boot = "not-efi";
  f.verity_roothash = nullptr;
  f.key_provenance = "dev-only";
  f.volent_sha256 = std::string(64, 'a');
  f.kernel_sha256 = nullptr;
  f.allowlist = json::array({{{"capability", "web"}, {"scheme", "https"}, {"host", "*"}}});
  f.trust = TrustDocument(TrustSettings{});
  f.journal_entries = 3;
  f.journal_head = "sha256:" + std::string(64, 'b');
  f.tpm = NoTpmSection("attestation.tpm is \"none\" in volent.yaml");
  return f;
}

// 2026-12-02T10:01:00Z
constexpr int64_t kNow = 1796205660;

Policy PolicyFor(const std::string& extra = "") {
  const std::string text = R"({"signers": [")" + core::Base64Encode(NodeKey().public_key().raw()) +
                           R"("], "tpm": "optional")" + extra + "}";
  auto policy = ParsePolicy(text);
  EXPECT_TRUE(policy.ok()) << policy.message();
  return policy.ok() ? *policy : Policy{};
}

std::set<std::string> Claims(const Verdict& v) {
  std::set<std::string> out;
  for (const FailedClaim& f : v.failed) out.insert(f.claim);
  return out;
}

// The report's statement with `edit` applied to its predicate, signed again
// with the node's key.
std::string Resigned(const std::string& envelope, const std::function<void(json&)>& edit) {
  auto parsed = rc::ParseEnvelope(envelope);
  auto statement = rc::ParseStatement(parsed->payload);
  edit(statement->predicate);
  return rc::SerializeEnvelope(rc::SignEnvelope(rc::kInTotoPayloadType, rc::SerializeStatement(*statement), NodeKey()));
}

TEST(ReportTest, ASignedReportVerifiesUnderItsPolicy) {
  auto report = SignReport(Facts(), NodeKey(), false);
  ASSERT_TRUE(report.ok()) << report.message();
  Verdict v = VerifyReport(*report, PolicyFor(R"(, "max_age_seconds": 300, "key_provenance": "dev-only")"), "00ff",
                           kNow);
  EXPECT_TRUE(v.verified()) << (v.failed.empty() ? "" : v.failed[0].claim + ": " + v.failed[0].why);
  EXPECT_NE(std::find(v.checked.begin(), v.checked.end(), "time"), v.checked.end());
}

// full-chain is the node's claim; without an event log the quote vouches
// for (here: no TPM at all), the verifier does not take it.
TEST(ReportTest, FullChainWithoutAQuotedEventLogFailsTheProfile) {
  ReportFacts f = Facts();
  f.boot_profile = "full-chain";
  f.secure_boot = "enabled";
  f.verity_roothash = std::string(64, 'c');
  auto report = SignReport(f, NodeKey(), false);
  ASSERT_TRUE(report.ok()) << report.message();
  Verdict v = VerifyReport(*report, PolicyFor(R"(, "boot_profiles": ["full-chain"])"), "00ff", kNow);
  EXPECT_FALSE(v.verified());
  EXPECT_EQ(Claims(v), std::set<std::string>{"boot.profile"});
  // The same policy allowing verity-only too does not make the claim true.
  Verdict both = VerifyReport(*report, PolicyFor(R"(, "boot_profiles": ["verity-only", "full-chain"])"), "00ff", kNow);
  EXPECT_EQ(Claims(both), std::set<std::string>{"boot.profile"});
}

// The Secure Boot keys' provenance is the quoted log's; a report that
// claims one without such a log is not taken at its word.
TEST(ReportTest, SecureBootKeysWithoutAQuotedLogFail) {
  ReportFacts f = Facts();
  f.secure_boot_keys = "not-dev-only";
  auto report = SignReport(f, NodeKey(), false);
  ASSERT_TRUE(report.ok()) << report.message();
  Verdict v = VerifyReport(*report, PolicyFor(), "00ff", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"boot.secure_boot_keys"});
  // Saying nothing (an older node, or no UEFI log) is not a failure.
  EXPECT_TRUE(VerifyReport(*SignReport(Facts(), NodeKey(), false), PolicyFor(), "00ff", kNow).verified());
}

TEST(ReportTest, AReleaseBuildRefusesADevOnlyKey) {
  EXPECT_TRUE(MaySign("dev-only", false).ok());
  EXPECT_TRUE(MaySign("production", true).ok());
  auto refused = SignReport(Facts(), NodeKey(), /*release_shaped=*/true);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, core::ErrorKind::kConflict);
  EXPECT_NE(refused.message().find("refusing to sign"), std::string::npos);

  // The same through the attestor the node uses, without a TPM.
  const std::string dir = std::filesystem::temp_directory_path() / "volent-attestor-test";
  std::filesystem::create_directories(dir);
  AttestorOptions o;
  o.tpm = "none";
  o.key_provenance = "dev-only";
  o.key = std::make_shared<const core::ed25519::SecretKey>(core::ed25519::SecretKey::FromSeed(std::string(32, '\x05')).value());
  o.allowlist = json::array();
  o.trust = TrustDocument(TrustSettings{});
  o.data_dir = dir;
  o.release_shaped = true;
  o.journal_digest = [] { return core::Result<std::pair<uint64_t, std::string>>(std::make_pair(0, "sha256:00")); };
  auto attestor = Attestor::Start(o);
  ASSERT_TRUE(attestor.ok()) << attestor.message();
  auto report = (*attestor)->Report("00ff");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind, core::ErrorKind::kConflict);
  o.release_shaped = false;
  auto dev = Attestor::Start(o);
  ASSERT_TRUE(dev.ok());
  EXPECT_TRUE((*dev)->Report("00ff").ok());
  EXPECT_EQ((*dev)->Report("0").error().kind, core::ErrorKind::kInvalidArgument);  // odd hex digits
  EXPECT_EQ((*dev)->Report(std::string(66, 'a')).error().kind, core::ErrorKind::kInvalidArgument);
  std::filesystem::remove_all(dir);
}

TEST(ReportTest, EachAlterationFailsItsClaim) {
  const std::string report = *SignReport(Facts(), NodeKey(), false);
  const Policy policy = PolicyFor(R"(, "max_age_seconds": 300)");
  EXPECT_EQ(Claims(VerifyReport(report, policy, "00fe", kNow)), std::set<std::string>{"nonce"});
  EXPECT_EQ(Claims(VerifyReport(report, policy, "", kNow)), std::set<std::string>{"nonce"});  // none to check
  EXPECT_EQ(Claims(VerifyReport(report, policy, "00ff", kNow + 3600)), std::set<std::string>{"time"});
  // The allowlist changed and the report signed again: its digest no longer matches.
  const std::string widened = Resigned(report, [](json& p) {
    p["egress"]["allowlist"].push_back({{"capability", "internal"}, {"scheme", "http"}, {"cidr", "10.0.0.0/8"}});
  });
  EXPECT_EQ(Claims(VerifyReport(widened, policy, "00ff", kNow)), std::set<std::string>{"egress.allowlist"});
  // The binary's digest in the predicate no longer the subject's.
  const std::string swapped = Resigned(report, [](json& p) { p["software"]["volent"]["sha256"] = std::string(64, 'c'); });
  EXPECT_EQ(Claims(VerifyReport(swapped, policy, "00ff", kNow)), std::set<std::string>{"software.volent"});
  // A TPM section that is not one.
  const std::string bad_tpm = Resigned(report, [](json& p) { p["tpm"] = {{"present", true}, {"ak", 1}}; });
  EXPECT_EQ(Claims(VerifyReport(bad_tpm, policy, "00ff", kNow)), std::set<std::string>{"tpm"});
  // A required TPM that is not there.
  Policy required = policy;
  required.tpm_required = true;
  EXPECT_EQ(Claims(VerifyReport(report, required, "00ff", kNow)), std::set<std::string>{"tpm"});
  // Not signed by the policy's key: nothing else is read.
  auto other = core::ed25519::SecretKey::FromSeed(std::string(32, '\x06')).value();
  auto parsed = rc::ParseEnvelope(report);
  const std::string foreign = rc::SerializeEnvelope(rc::SignEnvelope(rc::kInTotoPayloadType, parsed->payload, other));
  Verdict v = VerifyReport(foreign, policy, "00ff", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"signature"});
  EXPECT_EQ(v.checked, std::vector<std::string>{"signature"});
}

TEST(PolicyTest, ReadsStrictly) {
  const std::string key = core::Base64Encode(NodeKey().public_key().raw());
  EXPECT_FALSE(ParsePolicy("{}").ok());                                         // no signers
  EXPECT_FALSE(ParsePolicy(R"({"signers": ["not base64!"]})").ok());
  EXPECT_FALSE(ParsePolicy(R"({"signers": [")" + key + R"("], "secureboot": "required"})").ok());  // misspelt
  EXPECT_FALSE(ParsePolicy(R"({"signers": [")" + key + R"("], "pcrs": {"24": ["00"]}})").ok());
  EXPECT_FALSE(ParsePolicy(R"({"signers": [")" + key + R"("], "pcrs": {"7": ["AB"]}})").ok());
  EXPECT_FALSE(ParsePolicy(R"({"signers": [")" + key + R"("], "tpm_ak_names": ["00"]})").ok());
  EXPECT_FALSE(ParsePolicy(R"({"signers": [")" + key + R"("], "allowlist": {"equal": [], "subset_of": []}})").ok());
  EXPECT_FALSE(ParsePolicy(R"({"signers": [")" + key + R"("], "journal": {"head": "sha256:00"}})").ok());
  EXPECT_FALSE(ParsePolicy(R"({"signers": [")" + key + R"("], "signers": []})").ok());  // duplicate key
  auto all = ParsePolicy(R"({"signers": [")" + key + R"("], "nonce": "00ff", "max_age_seconds": 60,
      "boot_profiles": ["full-chain"], "secure_boot": "required", "key_provenance": "production", "tpm": "optional",
      "tpm_ak_names": ["000b)" + std::string(64, '1') + R"("], "pcrs": {"7": [")" + std::string(64, '2') + R"("]},
      "verity_roothash": ")" + std::string(64, '3') + R"(", "allowlist": {"subset_of": [{"capability": "web"}]},
      "journal": {"entries": 4, "head": "sha256:)" + std::string(64, '4') + R"("},
      "software": {"volent": [")" + std::string(64, '5') + R"("]}})");
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_TRUE(all->secure_boot_required);
  EXPECT_FALSE(all->tpm_required);
  EXPECT_EQ(all->pcrs.at(7).size(), 1u);
  EXPECT_EQ(*all->journal_entries, 4u);
}


// --- with a TPM (swtpm) ---------------------------------------------------------------------------------

void Put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// A crypto-agile event log (event_log.h): the Spec ID header with sha256,
// then one EV_POST_CODE event per (pcr, digest).
std::string EventLog(const std::vector<std::pair<uint32_t, std::array<uint8_t, 32>>>& events) {
  std::string spec("Spec ID Event03\0", 16);
  Put32(spec, 0);                           // platformClass
  spec += std::string("\0\2\0\2", 4);      // version 2.0 errata 0, uintnSize 2
  Put32(spec, 1);                           // one algorithm
  spec += std::string("\x0b\0\x20\0", 4);  // sha256, 32 bytes
  spec.push_back('\0');                     // no vendor info
  std::string log;
  Put32(log, 0);
  Put32(log, 3);  // EV_NO_ACTION
  log += std::string(20, '\0');
  Put32(log, static_cast<uint32_t>(spec.size()));
  log += spec;
  for (const auto& [pcr, digest] : events) {
    Put32(log, pcr);
    Put32(log, 1);  // EV_POST_CODE
    Put32(log, 1);
    log += std::string("\x0b\0", 2);
    log.append(reinterpret_cast<const char*>(digest.data()), 32);
    Put32(log, 4);
    log += "code";
  }
  return log;
}

TEST(EventLogTest, ReplaysEachPcrAndRefusesBrokenLogs) {
  const std::array<uint8_t, 32> a = core::Sha256(std::string_view("a")), b = core::Sha256(std::string_view("b"));
  auto replay = ReplayEventLog(EventLog({{0, a}, {7, b}, {0, b}}));
  ASSERT_TRUE(replay.ok()) << replay.message();
  const std::vector<std::array<uint8_t, 32>> zero_ab = {a, b};
  EXPECT_EQ(replay->pcrs.at(0), ReplayPcr(zero_ab));
  EXPECT_EQ(replay->pcrs.at(7), ReplayPcr(std::vector<std::array<uint8_t, 32>>{b}));
  EXPECT_EQ(replay->events, 4u);
  const std::string log = EventLog({{0, a}});
  const size_t header = EventLog({}).size();  // a log of no events is a log
  EXPECT_TRUE(ReplayEventLog(log.substr(0, header)).ok());
  for (size_t cut = 0; cut < log.size(); ++cut) {
    if (cut != header) EXPECT_FALSE(ReplayEventLog(log.substr(0, cut)).ok()) << cut;
  }
  EXPECT_FALSE(ReplayEventLog(log + "x").ok());
  std::string bad_pcr = log;
  bad_pcr[header] = 24;  // the event's PCR index
  EXPECT_FALSE(ReplayEventLog(bad_pcr).ok());
}

// The allowlist an auditor approves, and a wider one.
json Narrow() { return json::array({{{"capability", "web"}, {"scheme", "https"}, {"host", "api.example.com"}}}); }
json Wide() { return json::array({{{"capability", "web"}, {"scheme", "https"}, {"host", "*"}}}); }

class TpmReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    tpm_ = testing::SwTpm::Start(why);
    if (!tpm_) GTEST_SKIP() << why;
    dir_ = tpm_->dir() + "/data";
    std::filesystem::create_directories(dir_);
  }

  std::unique_ptr<Attestor> Start(const std::string& event_log = "") {
    AttestorOptions o;
    o.tpm = tpm_->tcti();
    o.key_provenance = "dev-only";
    o.key = std::make_shared<const core::ed25519::SecretKey>(core::ed25519::SecretKey::FromSeed(std::string(32, '\x05')).value());
    o.allowlist = allowlist_;
    o.trust = TrustDocument(trust_);
    o.data_dir = dir_;
    o.journal_digest = [] { return core::Result<std::pair<uint64_t, std::string>>(std::make_pair(0, "sha256:00")); };
    if (!event_log.empty()) {
      o.event_log_path = dir_ + "/event_log.bin";
      std::ofstream(o.event_log_path, std::ios::binary) << event_log;
    }
    auto attestor = Attestor::Start(o);
    EXPECT_TRUE(attestor.ok()) << attestor.message();
    EXPECT_EQ((*attestor)->no_tpm_reason(), "");
    return attestor.ok() ? std::move(*attestor) : nullptr;
  }

  Policy TpmPolicy() {
    Policy p = PolicyFor();
    p.tpm_required = true;
    return p;
  }

  std::unique_ptr<testing::SwTpm> tpm_;
  std::string dir_;
  json allowlist_ = Wide();
  TrustSettings trust_;
};

TEST_F(TpmReportTest, AlteredAndSignedAgainTheQuoteStillCatchesIt) {
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  const Policy policy = TpmPolicy();
  Verdict good = VerifyReport(*report, policy, "0a0b", kNow);
  EXPECT_TRUE(good.verified()) << good.failed[0].claim << ": " << good.failed[0].why;

  // Whoever holds the node key can sign anything; the quote is the TPM's.
  const std::string pcr = Resigned(*report, [](json& p) { p["tpm"]["quote"]["pcrs"]["0"] = std::string(64, '1'); });
  Verdict v = VerifyReport(pcr, policy, "0a0b", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"tpm.quote"});
  EXPECT_NE(v.failed[0].why.find("pcr_digest_mismatch"), std::string::npos) << v.failed[0].why;

  const std::string event = Resigned(*report, [](json& p) {
    p["tpm"]["node"]["events"][2]["sha256"] = std::string(64, '2');  // the allowlist's measurement
  });
  EXPECT_EQ(Claims(VerifyReport(event, policy, "0a0b", kNow)), std::set<std::string>{"tpm.node_pcr"});

  const std::string allowlist = Resigned(*report, [](json& p) {
    p["egress"]["allowlist"] = json::array();
    p["egress"]["sha256"] = AllowlistDigest(json::array());
  });
  EXPECT_EQ(Claims(VerifyReport(allowlist, policy, "0a0b", kNow)), std::set<std::string>{"egress.allowlist"});

  const std::string stale = Resigned(*report, [](json& p) { p["nonce"] = "0a0c"; });
  EXPECT_EQ(Claims(VerifyReport(stale, policy, "0a0c", kNow)), std::set<std::string>{"tpm.quote"});
}

TEST_F(TpmReportTest, ThePlatformEventLogMustReplayToTheQuote) {
  // The "firmware" extends PCR 0 and logs it; the node reports both.
  const std::array<uint8_t, 32> boot = core::Sha256(std::string_view("firmware"));
  {
    auto tpm = Tpm::Open(tpm_->tcti());
    ASSERT_TRUE(tpm.ok()) << tpm.message();
    ASSERT_TRUE((*tpm)->Extend(0, boot).ok());
  }
  auto attestor = Start(EventLog({{0, boot}}));
  ASSERT_NE(attestor, nullptr);
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  Verdict v = VerifyReport(*report, TpmPolicy(), "0a0b", kNow);
  EXPECT_TRUE(v.verified()) << v.failed[0].claim << ": " << v.failed[0].why;
  EXPECT_NE(std::find(v.checked.begin(), v.checked.end(), "tpm.event_log"), v.checked.end());

  const std::string forged = Resigned(*report, [](json& p) {
    p["tpm"]["event_log"] = core::Base64Encode(EventLog({{0, core::Sha256(std::string_view("other"))}}));
  });
  EXPECT_EQ(Claims(VerifyReport(forged, TpmPolicy(), "0a0b", kNow)), std::set<std::string>{"tpm.event_log"});
  const std::string garbage = Resigned(*report, [](json& p) { p["tpm"]["event_log"] = core::Base64Encode("garbage"); });
  EXPECT_EQ(Claims(VerifyReport(garbage, TpmPolicy(), "0a0b", kNow)), std::set<std::string>{"tpm.event_log"});
}

// --- what the node's PCR events mean ----------------------------------------------------------------

// A policy that requires the TPM, pins this swtpm's AK and allows only the
// narrow allowlist.
Policy NarrowPolicy(const std::string& ak_name) {
  Policy p = PolicyFor(R"(, "tpm_ak_names": [")" + ak_name + R"("], "allowlist": {"subset_of": )" + Narrow().dump() + "}");
  p.tpm_required = true;
  return p;
}

// What the node extends its PCR with for an event of `kind` (an attacker
// with the TPM can do the same: the encoding is public).
std::array<uint8_t, 32> AsTheNodeExtends(const std::string& kind, const std::string& hex) {
  NodeEvent event{kind, {}};
  auto raw = core::HexDecode(hex, "digest");
  std::copy(raw->begin(), raw->end(), event.sha256.begin());
  return ExtendedDigest(event);
}

std::string AkName(const std::string& report) {
  auto parsed = rc::ParseEnvelope(report);
  auto statement = rc::ParseStatement(parsed->payload);
  return statement->predicate["tpm"]["ak"]["name"].get<std::string>();
}

TEST_F(TpmReportTest, RelabelledEventsSignedAgainDoNotVerify) {
  // The node started with the approved allowlist, then again (same boot)
  // with a wider one, which it runs now.
  allowlist_ = Narrow();
  ASSERT_NE(Start(), nullptr);
  allowlist_ = Wide();
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  const std::string ak = AkName(*report);
  // The holder of the node's key calls the wide allowlist's event something
  // else, so that the approved one is the latest of its kind, and reports it.
  const std::string forged = Resigned(*report, [](json& p) {
    json& events = p["tpm"]["node"]["events"];
    for (size_t i = events.size(); i-- > 0;) {
      if (events[i]["kind"] == "egress-allowlist") {
        events[i]["kind"] = "ampoule-kernel";
        break;
      }
    }
    p["egress"]["allowlist"] = Narrow();
    p["egress"]["sha256"] = AllowlistDigest(Narrow());
  });
  Verdict v = VerifyReport(forged, NarrowPolicy(ak), "0a0b", kNow);
  EXPECT_FALSE(v.verified());
  EXPECT_TRUE(Claims(v).count("tpm.node_pcr")) << ::testing::PrintToString(Claims(v));
}

TEST_F(TpmReportTest, AnEarlierWideAllowlistInTheSameBootFailsSubsetOf) {
  allowlist_ = Wide();
  ASSERT_NE(Start(), nullptr);
  allowlist_ = Narrow();
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  Verdict v = VerifyReport(*report, NarrowPolicy(AkName(*report)), "0a0b", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"egress.allowlist"});
  // A node started once with the narrow one verifies.
}

TEST_F(TpmReportTest, AnApprovedDigestExtendedAfterTheStartFails) {
  allowlist_ = Wide();
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  // Anyone with the TPM extends the node's PCR with the approved
  // allowlist's event, as the node would, then signs a report naming it.
  {
    auto tpm = Tpm::Open(tpm_->tcti());
    ASSERT_TRUE(tpm.ok()) << tpm.message();
    ASSERT_TRUE((*tpm)->Extend(15, AsTheNodeExtends("egress-allowlist", AllowlistDigest(Narrow()))).ok());
  }
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  const std::string forged = Resigned(*report, [](json& p) {
    p["tpm"]["node"]["events"].push_back({{"kind", "egress-allowlist"}, {"sha256", AllowlistDigest(Narrow())}});
    p["egress"]["allowlist"] = Narrow();
    p["egress"]["sha256"] = AllowlistDigest(Narrow());
  });
  Verdict v = VerifyReport(forged, NarrowPolicy(AkName(*report)), "0a0b", kNow);
  EXPECT_FALSE(v.verified());
  EXPECT_TRUE(Claims(v).count("tpm.node_pcr")) << ::testing::PrintToString(Claims(v));
}

TEST_F(TpmReportTest, AnUnknownEventKindIsRefused) {
  allowlist_ = Narrow();
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  const std::string renamed = Resigned(*report, [](json& p) { p["tpm"]["node"]["events"][0]["kind"] = "volent-binary2"; });
  Verdict v = VerifyReport(renamed, NarrowPolicy(AkName(*report)), "0a0b", kNow);
  EXPECT_FALSE(v.verified());
  EXPECT_TRUE(Claims(v).count("tpm")) << ::testing::PrintToString(Claims(v));
}

// The attacker extends a whole start of approved values after the real
// one, marker and all: the PCR replays, the log reads as starts, and the
// real start (the wide allowlist) is still judged.
TEST_F(TpmReportTest, AFakeStartAfterTheRealOneDoesNotHideIt) {
  allowlist_ = Wide();
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  auto first = attestor->Report("0a0b");
  ASSERT_TRUE(first.ok()) << first.message();
  auto statement = rc::ParseStatement(rc::ParseEnvelope(*first)->payload);
  const json log = statement->predicate["tpm"]["node"];
  const json marker = {{"boot_id", "00000000-0000-0000-0000-000000000000"}, {"format", 2}};
  const json trust = statement->predicate["trust"]["config"];
  const std::string binary = log["events"][1]["sha256"];
  {
    auto tpm = Tpm::Open(tpm_->tcti());
    ASSERT_TRUE(tpm.ok()) << tpm.message();
    ASSERT_TRUE((*tpm)->Extend(15, AsTheNodeExtends("node-start", DocumentDigest(marker))).ok());
    ASSERT_TRUE((*tpm)->Extend(15, AsTheNodeExtends("volent-binary", binary)).ok());
    ASSERT_TRUE((*tpm)->Extend(15, AsTheNodeExtends("egress-allowlist", AllowlistDigest(Narrow()))).ok());
    ASSERT_TRUE((*tpm)->Extend(15, AsTheNodeExtends("node-trust", DocumentDigest(trust))).ok());
  }
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  const std::string forged = Resigned(*report, [&](json& p) {
    json& node = p["tpm"]["node"];
    node["events"].push_back({{"kind", "node-start"}, {"sha256", DocumentDigest(marker)}});
    node["events"].push_back({{"kind", "volent-binary"}, {"sha256", binary}});
    node["events"].push_back({{"kind", "egress-allowlist"}, {"sha256", AllowlistDigest(Narrow())}});
    node["events"].push_back({{"kind", "node-trust"}, {"sha256", DocumentDigest(trust)}});
    node["documents"][DocumentDigest(marker)] = marker;
    node["documents"][AllowlistDigest(Narrow())] = Narrow();
    p["egress"]["allowlist"] = Narrow();
    p["egress"]["sha256"] = AllowlistDigest(Narrow());
  });
  Verdict v = VerifyReport(forged, NarrowPolicy(AkName(*report)), "0a0b", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"egress.allowlist"});
  ASSERT_FALSE(v.failed.empty());
  EXPECT_NE(v.failed[0].why.find("start 1 of 2"), std::string::npos) << v.failed[0].why;

  // A marker alone (a start cut short) after the real start.
  {
    auto tpm = Tpm::Open(tpm_->tcti());
    ASSERT_TRUE(tpm.ok()) << tpm.message();
    ASSERT_TRUE((*tpm)->Extend(15, AsTheNodeExtends("node-start", DocumentDigest(marker))).ok());
  }
  auto again = attestor->Report("0a0b");
  ASSERT_TRUE(again.ok()) << again.message();
  const std::string cut = Resigned(*again, [&](json& p) {
    json& node = p["tpm"]["node"];
    for (const char* kind : {"node-start", "volent-binary", "egress-allowlist", "node-trust", "node-start"}) {
      const std::string digest = std::string(kind) == "node-start"       ? DocumentDigest(marker)
                                 : std::string(kind) == "volent-binary"    ? binary
                                 : std::string(kind) == "egress-allowlist" ? AllowlistDigest(Narrow())
                                                                           : DocumentDigest(trust);
      node["events"].push_back({{"kind", kind}, {"sha256", digest}});
    }
    node["documents"][DocumentDigest(marker)] = marker;
    node["documents"][AllowlistDigest(Narrow())] = Narrow();
  });
  Verdict cut_short = VerifyReport(cut, NarrowPolicy(AkName(*again)), "0a0b", kNow);
  EXPECT_TRUE(Claims(cut_short).count("tpm.node_pcr")) << ::testing::PrintToString(Claims(cut_short));
}

TEST_F(TpmReportTest, ANodeStartedOnceWithTheApprovedAllowlistVerifies) {
  allowlist_ = Narrow();
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  Verdict v = VerifyReport(*report, NarrowPolicy(AkName(*report)), "0a0b", kNow);
  EXPECT_TRUE(v.verified()) << v.failed[0].claim << ": " << v.failed[0].why;
  // And the same allowlist again at a second start in this boot.
  auto second = Start();
  ASSERT_NE(second, nullptr);
  auto again = second->Report("0a0c");
  ASSERT_TRUE(again.ok()) << again.message();
  Verdict w = VerifyReport(*again, NarrowPolicy(AkName(*again)), "0a0c", kNow);
  EXPECT_TRUE(w.verified()) << w.failed[0].claim << ": " << w.failed[0].why;
}

TEST_F(TpmReportTest, ADifferentDnsServerFailsAPolicyPinningIt) {
  trust_.dns_server = "198.51.100.53";
  auto attestor = Start();
  ASSERT_NE(attestor, nullptr);
  auto report = attestor->Report("0a0b");
  ASSERT_TRUE(report.ok()) << report.message();
  Policy other = TpmPolicy();
  other.dns_server = "192.0.2.53:53";
  const auto parsed = ParsePolicy(R"({"signers": [")" + core::Base64Encode(NodeKey().public_key().raw()) +
                                  R"("], "egress": {"dns_server": "192.0.2.53"}})");
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  EXPECT_EQ(parsed->dns_server, "192.0.2.53:53");
  Verdict v = VerifyReport(*report, *parsed, "0a0b", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"egress.dns_server"});
  // The node's own value verifies, bound to the quote by the node-trust event.
  Policy own = TpmPolicy();
  own.dns_server = "198.51.100.53:53";
  Verdict ok = VerifyReport(*report, own, "0a0b", kNow);
  EXPECT_TRUE(ok.verified()) << ok.failed[0].claim << ": " << ok.failed[0].why;
  EXPECT_NE(std::find(ok.checked.begin(), ok.checked.end(), "tpm.node_pcr"), ok.checked.end());
  // The report says another server than the one measured: the last start's
  // node-trust event does not match it.
  const std::string lied = Resigned(*report, [](json& p) {
    p["trust"]["config"]["egress"]["dns_server"] = "192.0.2.53:53";
    p["trust"]["sha256"] = DocumentDigest(p["trust"]["config"]);
  });
  EXPECT_EQ(Claims(VerifyReport(lied, other, "0a0b", kNow)), (std::set<std::string>{"trust", "egress.dns_server"}));
  // The whole trust configuration pinned by its digest.
  Policy pinned = TpmPolicy();
  pinned.trust_sha256 = {DocumentDigest(TrustDocument(TrustSettings{}))};
  EXPECT_EQ(Claims(VerifyReport(*report, pinned, "0a0b", kNow)), std::set<std::string>{"trust"});
  pinned.trust_sha256 = {DocumentDigest(TrustDocument(trust_))};
  EXPECT_TRUE(VerifyReport(*report, pinned, "0a0b", kNow).verified());
}

TEST(NodePcrLogTest, UnknownKindsOlderFormatsAndWrongDocumentsAreRefused) {
  const json doc = json::array({{{"capability", "web"}}});
  json log = json::object();
  log["format"] = 2;
  log["pcr"] = 15u;
  log["prior_unknown"] = false;
  log["events"] = json::array({{{"kind", "egress-allowlist"}, {"sha256", DocumentDigest(doc)}}});
  log["documents"] = json::object();
  log["documents"][DocumentDigest(doc)] = doc;
  ASSERT_TRUE(NodePcrLogFromJson(log).ok()) << NodePcrLogFromJson(log).message();
  json unknown = log;
  unknown["events"][0]["kind"] = "egress-allowlist-v0";
  EXPECT_NE(NodePcrLogFromJson(unknown).message().find("unknown event kind"), std::string::npos);
  json v1 = log;
  v1.erase("format");
  EXPECT_NE(NodePcrLogFromJson(v1).message().find("format 1"), std::string::npos);
  json wrong = log;
  wrong["documents"][DocumentDigest(doc)] = json::array();
  EXPECT_NE(NodePcrLogFromJson(wrong).message().find("digest"), std::string::npos);
  // Events outside a start, or a start cut short.
  auto parsed = NodePcrLogFromJson(log);
  EXPECT_NE(SplitStarts(*parsed).message().find("outside any start"), std::string::npos) << SplitStarts(*parsed).message();
  // The kind is in what is extended: the same digest under two kinds extends two values.
  NodeEvent a{"egress-allowlist", {}}, b{"ampoule-kernel", {}};
  EXPECT_NE(ExtendedDigest(a), ExtendedDigest(b));
}

TEST(ReportTest, AReportOfTheOlderFormatIsRefused) {
  const std::string report = *SignReport(Facts(), NodeKey(), false);
  auto parsed = rc::ParseEnvelope(report);
  auto statement = rc::ParseStatement(parsed->payload);
  statement->predicate_type = std::string(kNodePredicateTypeV1);
  const std::string old = rc::SerializeEnvelope(rc::SignEnvelope(rc::kInTotoPayloadType, rc::SerializeStatement(*statement), NodeKey()));
  Verdict v = VerifyReport(old, PolicyFor(), "00ff", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"statement"});
  EXPECT_NE(v.failed[0].why.find("node/v1"), std::string::npos) << v.failed[0].why;
}

TEST(PolicyTest, PinsTheDnsServerAndTheTrustConfiguration) {
  const std::string key = core::Base64Encode(NodeKey().public_key().raw());
  auto with = [&](const std::string& extra) { return ParsePolicy(R"({"signers": [")" + key + R"("], )" + extra + "}"); };
  EXPECT_EQ(with(R"("egress": {"dns_server": "system"})")->dns_server, "system");
  EXPECT_EQ(with(R"("egress": {"dns_server": "[2001:db8::53]"})")->dns_server, "[2001:db8::53]:53");
  EXPECT_EQ(with(R"("egress": {"dns_server": "192.0.2.53:5353"})")->dns_server, "192.0.2.53:5353");
  EXPECT_FALSE(with(R"("egress": {"dns_server": "dns.example.com"})").ok());
  EXPECT_FALSE(with(R"("egress": {"dns_server": ""})").ok());
  EXPECT_FALSE(with(R"("egress": {"resolver": "192.0.2.53"})").ok());
  EXPECT_FALSE(with(R"("trust": {"sha256": ["00"]})").ok());
  EXPECT_EQ(with(R"("trust": {"sha256": [")" + std::string(64, 'a') + R"("]})")->trust_sha256.size(), 1u);
  // Without a TPM the node's statement is judged: its trust section is checked.
  const std::string report = *SignReport(Facts(), NodeKey(), false);
  Policy policy = PolicyFor();
  policy.dns_server = "192.0.2.53:53";
  EXPECT_EQ(Claims(VerifyReport(report, policy, "00ff", kNow)), std::set<std::string>{"egress.dns_server"});
  policy.dns_server = "system";
  EXPECT_TRUE(VerifyReport(report, policy, "00ff", kNow).verified());
}

}  // namespace
}  // namespace volent::attest
