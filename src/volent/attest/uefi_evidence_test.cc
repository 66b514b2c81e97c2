// The full-chain evidence is read from the quoted event log only: each test
// builds the events a firmware and systemd's stub log, then bends one.
#include "volent/attest/uefi_evidence.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/sha256.h"

namespace volent::attest {
namespace {

constexpr uint32_t kEvIpl = 0x0D;
constexpr uint32_t kEvEfiVariableDriverConfig = 0x80000001;
constexpr char kRootHash[] = "56f6100ab1c91b8f98d84ef3cdb66451c630ce4e025d37c57d3e103d7c86f566";

std::string Utf16(std::string_view s) {
  std::string out;
  for (char c : s) out += std::string{c, '\0'};
  return out;
}

std::string U64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>(v >> (8 * i));
  return out;
}

// UEFI_VARIABLE_DATA for a variable of EFI_GLOBAL_VARIABLE (or `guid`).
std::string VariableData(std::string_view name, std::string_view value,
                         std::string guid = std::string("\x61\xdf\xe4\x8b\xca\x93\xd2\x11\xaa\x0d\x00\xe0\x98\x03\x2b\x8c",
                                                        16)) {
  return guid + U64(name.size()) + U64(value.size()) + Utf16(name) + std::string(value);
}

struct Log {
  std::vector<std::string> data;  // owns what the events view
  std::vector<LoggedEvent> events;
  void Add(uint32_t pcr, uint32_t type, std::string bytes, const core::Sha256Digest& digest) {
    data.push_back(std::move(bytes));
    events.push_back({pcr, type, digest, {}});
  }
  std::vector<LoggedEvent> View() {
    std::vector<LoggedEvent> out = events;
    for (size_t i = 0; i < out.size(); ++i) out[i].data = data[i];
    return out;
  }
};

const std::string kCmdline = std::string("console=ttyS0 volent.roothash=") + kRootHash + " volent.keys=dev-only";

// What a full-chain boot logs: SecureBoot = 1 in PCR 7, the stub's
// .cmdline name and content events in PCR 11.
Log FullChain(std::string secure_boot = "\x01", uint32_t stub_pcr = 11, std::string cmdline = kCmdline) {
  Log log;
  std::string sb = VariableData("SecureBoot", secure_boot);
  log.Add(7, kEvEfiVariableDriverConfig, sb, core::Sha256(sb));
  const std::string name = Utf16(std::string_view(".cmdline\0", 9));
  log.Add(stub_pcr, kEvIpl, name, core::Sha256(std::string_view(".cmdline\0", 9)));
  log.Add(stub_pcr, kEvIpl, name, core::Sha256(cmdline));
  return log;
}

TEST(UefiEvidenceTest, AFullChainBootShowsItself) {
  Log log = FullChain();
  UefiEvidence e = ReadUefiEvidence(log.View());
  EXPECT_TRUE(e.secure_boot_on);
  ASSERT_TRUE(e.uki_cmdline.has_value());
  EXPECT_EQ(*e.uki_cmdline, core::Sha256(kCmdline));
  std::string why;
  EXPECT_TRUE(ShowsFullChain(e, kCmdline, kRootHash, &why)) << why;
}

TEST(UefiEvidenceTest, SecureBootOffOrMalformedIsNotOn) {
  for (const std::string& value : {std::string("\x00", 1), std::string("\x01\x01", 2), std::string()}) {
    Log log = FullChain(value);
    std::string why;
    EXPECT_FALSE(ReadUefiEvidence(log.View()).secure_boot_on);
    EXPECT_FALSE(ShowsFullChain(ReadUefiEvidence(log.View()), kCmdline, kRootHash, &why));
    EXPECT_NE(why.find("Secure Boot"), std::string::npos) << why;
  }
  // A SecureBoot variable of another vendor is not the firmware's.
  Log log;
  std::string other = VariableData("SecureBoot", "\x01", std::string(16, 'x'));
  log.Add(7, kEvEfiVariableDriverConfig, other, core::Sha256(other));
  EXPECT_FALSE(ReadUefiEvidence(log.View()).secure_boot_on);
  // Nor is the value 1 logged into another PCR.
  Log elsewhere;
  std::string sb = VariableData("SecureBoot", "\x01");
  elsewhere.Add(1, kEvEfiVariableDriverConfig, sb, core::Sha256(sb));
  EXPECT_FALSE(ReadUefiEvidence(elsewhere.View()).secure_boot_on);
}

TEST(UefiEvidenceTest, TheStubsEventsCountOnlyInPcr11) {
  Log log = FullChain("\x01", 12);
  std::string why;
  EXPECT_FALSE(ReadUefiEvidence(log.View()).uki_cmdline.has_value());
  EXPECT_FALSE(ShowsFullChain(ReadUefiEvidence(log.View()), kCmdline, kRootHash, &why));
  EXPECT_NE(why.find("PCR 11"), std::string::npos) << why;
}

TEST(UefiEvidenceTest, TheKernelsCommandLineMustBeTheSignedOne) {
  Log log = FullChain();
  std::string why;
  EXPECT_FALSE(ShowsFullChain(ReadUefiEvidence(log.View()), kCmdline + " init=/bin/sh", kRootHash, &why));
  EXPECT_NE(why.find("not the one the signed UKI carried"), std::string::npos) << why;
}

TEST(UefiEvidenceTest, TheSignedCommandLineMustNameTheVerityRoot) {
  const std::string other = std::string(64, 'a');
  Log log = FullChain();
  std::string why;
  EXPECT_FALSE(ShowsFullChain(ReadUefiEvidence(log.View()), kCmdline, other, &why));
  EXPECT_NE(why.find("root's hash"), std::string::npos) << why;
  // A prefix of the hash is not the hash.
  const std::string truncated = std::string("volent.roothash=") + std::string(kRootHash).substr(0, 60);
  Log short_log = FullChain("\x01", 11, truncated);
  EXPECT_FALSE(ShowsFullChain(ReadUefiEvidence(short_log.View()), truncated, kRootHash, &why));
  EXPECT_FALSE(ShowsFullChain(ReadUefiEvidence(log.View()), kCmdline, "", &why));
}

// GRUB's event: "kernel_cmdline: PATH ARGS" with its NUL, the digest of
// "PATH ARGS".
void AddGrubCmdline(Log& log, const std::string& body, const std::string& measured_body) {
  log.Add(8, kEvIpl, "kernel_cmdline: " + body + std::string(1, '\0'), core::Sha256(measured_body));
}

Log ShimChain(const std::string& body) {
  Log log = FullChain();
  log.events.erase(log.events.begin() + 1, log.events.end());  // no UKI: keep SecureBoot only
  log.data.resize(1);
  AddGrubCmdline(log, body, body);
  return log;
}

TEST(UefiEvidenceTest, AShimChainBootShowsGrubsMeasuredCommandLine) {
  const std::string body = "/EFI/debian/vmlinuz " + kCmdline;
  Log log = ShimChain(body);
  UefiEvidence e = ReadUefiEvidence(log.View());
  ASSERT_TRUE(e.grub_kernel_cmdline.has_value());
  EXPECT_EQ(*e.grub_kernel_cmdline, body);
  EXPECT_FALSE(e.uki_cmdline.has_value());
  std::string why;
  // GRUB hands the kernel "BOOT_IMAGE=PATH ARGS".
  EXPECT_TRUE(ShowsShimChain(e, "BOOT_IMAGE=" + body, kRootHash, &why)) << why;
  EXPECT_FALSE(ShowsFullChain(e, "BOOT_IMAGE=" + body, kRootHash, &why));
  EXPECT_FALSE(ShowsShimChain(e, "BOOT_IMAGE=" + body + " init=/bin/sh", kRootHash, &why));
  EXPECT_NE(why.find("PCR 8"), std::string::npos) << why;
  EXPECT_FALSE(ShowsShimChain(e, "BOOT_IMAGE=" + body, std::string(64, 'a'), &why));
}

TEST(UefiEvidenceTest, AGrubTextThatIsNotWhatWasMeasuredIsIgnored) {
  // The text says one root, the digest is of another command line: the
  // text proves nothing.
  Log log = ShimChain("x");
  log.data.resize(1);
  log.events.resize(1);
  AddGrubCmdline(log, "/EFI/debian/vmlinuz " + kCmdline,
                 "/EFI/debian/vmlinuz volent.roothash=" + std::string(64, 'b'));
  EXPECT_FALSE(ReadUefiEvidence(log.View()).grub_kernel_cmdline.has_value());
  // Nor does the same event in another PCR, or one without its NUL.
  Log other;
  std::string sb = VariableData("SecureBoot", "\x01");
  other.Add(7, kEvEfiVariableDriverConfig, sb, core::Sha256(sb));
  const std::string body = "/EFI/debian/vmlinuz " + kCmdline;
  other.Add(9, kEvIpl, "kernel_cmdline: " + body + std::string(1, '\0'), core::Sha256(body));
  other.Add(8, kEvIpl, "kernel_cmdline: " + body, core::Sha256(body));
  EXPECT_FALSE(ReadUefiEvidence(other.View()).grub_kernel_cmdline.has_value());
}

// db's authority event: UEFI_VARIABLE_DATA "db" of EFI_IMAGE_SECURITY_DATABASE_GUID
// whose data is the EFI_SIGNATURE_DATA (owner, certificate).
std::string DbAuthority(std::string_view cert) {
  const std::string guid("\xcb\xb2\x19\xd7\x3a\x3d\x96\x45\xa3\xbc\xda\xd0\x0e\x67\x65\x6f", 16);
  return VariableData("db", std::string(16, 'o') + std::string(cert), guid);
}

TEST(UefiEvidenceTest, TheDbCertificateSaysWhetherTheKeysAreDevOnly) {
  constexpr uint32_t kAuthority = 0x800000E0;
  Log dev = FullChain();
  const std::string entry = DbAuthority("0\x82...O=Volent dev-only, CN=Volent dev-only db...");
  dev.Add(7, kAuthority, entry, core::Sha256(entry));
  EXPECT_EQ(ReadUefiEvidence(dev.View()).secure_boot_keys, "dev-only");
  Log microsoft = FullChain();
  const std::string ms = DbAuthority("0\x82...Microsoft Corporation UEFI CA 2011...");
  microsoft.Add(7, kAuthority, ms, core::Sha256(ms));
  EXPECT_EQ(ReadUefiEvidence(microsoft.View()).secure_boot_keys, "not-dev-only");
  // The first authority counts: one logged later (shim's MokListRT, or a
  // forged one) does not change it; nor does one whose digest is not its data's.
  microsoft.Add(7, kAuthority, entry, core::Sha256(entry));
  EXPECT_EQ(ReadUefiEvidence(microsoft.View()).secure_boot_keys, "not-dev-only");
  Log forged = FullChain();
  forged.Add(7, kAuthority, entry, core::Sha256(ms));
  EXPECT_FALSE(ReadUefiEvidence(forged.View()).secure_boot_keys.has_value());
  EXPECT_FALSE(ReadUefiEvidence(FullChain().View()).secure_boot_keys.has_value());
}

}  // namespace
}  // namespace volent::attest
