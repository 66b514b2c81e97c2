// The report and its check without a TPM: signing, the release build's
// refusal of a dev-only key, the policy's strict reading, and claims that
// fail one at a time when a report is altered and signed again by the
// node's own key (what an attacker who stole it could do).
#include "volent/attest/report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ampoule/receipt/base64.h"
#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "volent/attest/attestor.h"
#include "volent/attest/policy.h"
#include "volent/attest/report_verify.h"
#include "volent/attest/tpm_section.h"

namespace volent::attest {
namespace {

namespace rc = ampoule::receipt;
using nlohmann::json;

const rc::SecretKey& NodeKey() {
  static const rc::SecretKey key = rc::SecretKey::FromSeed(std::string(32, '\x05')).value();
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
  f.journal_entries = 3;
  f.journal_head = "sha256:" + std::string(64, 'b');
  f.tpm = NoTpmSection("attestation.tpm is \"none\" in volent.yaml");
  return f;
}

// 2026-12-02T10:01:00Z
constexpr int64_t kNow = 1796205660;

Policy PolicyFor(const std::string& extra = "") {
  const std::string text = R"({"signers": [")" + rc::Base64Encode(NodeKey().public_key().raw()) +
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

TEST(ReportTest, AReleaseBuildRefusesADevOnlyKey) {
  EXPECT_TRUE(MaySign("dev-only", false).ok());
  EXPECT_TRUE(MaySign("production", true).ok());
  auto refused = SignReport(Facts(), NodeKey(), /*release_shaped=*/true);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ampoule::ErrorKind::kConflict);
  EXPECT_NE(refused.message().find("refusing to sign"), std::string::npos);

  // The same through the attestor the node uses, without a TPM.
  const std::string dir = std::filesystem::temp_directory_path() / "volent-attestor-test";
  std::filesystem::create_directories(dir);
  AttestorOptions o;
  o.tpm = "none";
  o.key_provenance = "dev-only";
  o.key = std::make_shared<const rc::SecretKey>(rc::SecretKey::FromSeed(std::string(32, '\x05')).value());
  o.allowlist = json::array();
  o.data_dir = dir;
  o.release_shaped = true;
  o.journal_digest = [] { return ampoule::Result<std::pair<uint64_t, std::string>>(std::make_pair(0, "sha256:00")); };
  auto attestor = Attestor::Start(o);
  ASSERT_TRUE(attestor.ok()) << attestor.message();
  auto report = (*attestor)->Report("00ff");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind, ampoule::ErrorKind::kConflict);
  o.release_shaped = false;
  auto dev = Attestor::Start(o);
  ASSERT_TRUE(dev.ok());
  EXPECT_TRUE((*dev)->Report("00ff").ok());
  EXPECT_EQ((*dev)->Report("0").error().kind, ampoule::ErrorKind::kInvalidArgument);  // odd hex digits
  EXPECT_EQ((*dev)->Report(std::string(66, 'a')).error().kind, ampoule::ErrorKind::kInvalidArgument);
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
  auto other = rc::SecretKey::FromSeed(std::string(32, '\x06')).value();
  auto parsed = rc::ParseEnvelope(report);
  const std::string foreign = rc::SerializeEnvelope(rc::SignEnvelope(rc::kInTotoPayloadType, parsed->payload, other));
  Verdict v = VerifyReport(foreign, policy, "00ff", kNow);
  EXPECT_EQ(Claims(v), std::set<std::string>{"signature"});
  EXPECT_EQ(v.checked, std::vector<std::string>{"signature"});
}

TEST(PolicyTest, ReadsStrictly) {
  const std::string key = rc::Base64Encode(NodeKey().public_key().raw());
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

}  // namespace
}  // namespace volent::attest
