#include "volent/attest/uefi_evidence.h"

#include <cstring>
#include <string>

#include "core/sha256.h"

namespace volent::attest {
namespace {

constexpr uint32_t kEvIpl = 0x0000000D;
constexpr uint32_t kEvEfiVariableDriverConfig = 0x80000001;
constexpr uint32_t kEvEfiVariableAuthority = 0x800000E0;
// EFI_IMAGE_SECURITY_DATABASE_GUID (d719b2cb-3d3a-4596-a3bc-dad00e67656f): db's vendor.
constexpr uint8_t kImageSecurityGuid[16] = {0xcb, 0xb2, 0x19, 0xd7, 0x3a, 0x3d, 0x96, 0x45,
                                            0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f};
// EFI_GLOBAL_VARIABLE (8be4df61-93ca-11d2-aa0d-00e098032b8c) as it is laid
// out in memory: the first three fields little-endian.
constexpr uint8_t kGlobalVariableGuid[16] = {0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11,
                                             0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c};

uint64_t U64(std::string_view s, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(s[at + i]);
  return v;
}

std::string Utf16(std::string_view ascii) {
  std::string out;
  for (char c : ascii) {
    out += c;
    out += '\0';
  }
  return out;
}

// UEFI_VARIABLE_DATA: the vendor GUID, the name's length in characters, the
// data's length, the name in UTF-16 (no NUL), the data.
bool IsSecureBootOn(std::string_view data) {
  static const std::string kName = Utf16("SecureBoot");
  if (data.size() < 32 || std::memcmp(data.data(), kGlobalVariableGuid, 16) != 0) return false;
  const uint64_t name_chars = U64(data, 16), data_size = U64(data, 24);
  if (name_chars != 10 || data_size != 1 || data.size() != 32 + kName.size() + 1) return false;
  return data.substr(32, kName.size()) == kName && data[32 + kName.size()] == '\x01';
}

// The data of a UEFI_VARIABLE_DATA for db (the EFI_SIGNATURE_DATA that
// verified an image), or empty when `data` is not one.
std::string_view DbAuthority(std::string_view data) {
  static const std::string kName = Utf16("db");
  if (data.size() < 32 + kName.size() || std::memcmp(data.data(), kImageSecurityGuid, 16) != 0) return {};
  if (U64(data, 16) != 2 || data.substr(32, kName.size()) != kName) return {};
  const uint64_t size = U64(data, 24);
  if (size != data.size() - 32 - kName.size()) return {};
  return data.substr(32 + kName.size());
}

}  // namespace

UefiEvidence ReadUefiEvidence(const std::vector<LoggedEvent>& events) {
  static const std::string kCmdlineSection = Utf16(std::string_view(".cmdline\0", 9));
  static const std::array<uint8_t, 32> kNameDigest = core::Sha256(std::string_view(".cmdline\0", 9));
  UefiEvidence evidence;
  for (const LoggedEvent& e : events) {
    if (e.pcr == 7 && e.type == kEvEfiVariableDriverConfig && IsSecureBootOn(e.data)) evidence.secure_boot_on = true;
    if (e.pcr == 7 && e.type == kEvEfiVariableAuthority && !evidence.secure_boot_keys) {
      // The certificate's DER holds its subject's name as text.
      std::string_view entry = DbAuthority(e.data);
      if (!entry.empty() && core::Sha256(e.data) == e.sha256) {
        evidence.secure_boot_keys = entry.find("dev-only") != std::string_view::npos ? "dev-only" : "not-dev-only";
      }
    }
    // systemd's stub logs the section's name twice: first extending the
    // name itself, then the section's bytes. The second is the command line.
    if (e.pcr == 11 && e.type == kEvIpl && e.data == kCmdlineSection && e.sha256 != kNameDigest) {
      evidence.uki_cmdline = e.sha256;
    }
    // GRUB's text ends with its NUL; only a text whose digest it is counts.
    constexpr std::string_view kGrubPrefix = "kernel_cmdline: ";
    if (e.pcr == 8 && e.type == kEvIpl && e.data.size() > kGrubPrefix.size() && e.data.back() == '\0' &&
        e.data.substr(0, kGrubPrefix.size()) == kGrubPrefix) {
      std::string_view body = e.data.substr(kGrubPrefix.size(), e.data.size() - kGrubPrefix.size() - 1);
      if (core::Sha256(body) == e.sha256) evidence.grub_kernel_cmdline = std::string(body);
    }
  }
  return evidence;
}

namespace {

// Says why not, and returns false.
bool No(std::string* why, const char* reason) {
  if (why) *why = reason;
  return false;
}

bool NamesRoot(std::string_view cmdline, std::string_view roothash) {
  const std::string padded = " " + std::string(cmdline) + " ";
  return !roothash.empty() && padded.find(" volent.roothash=" + std::string(roothash) + " ") != std::string::npos;
}

}  // namespace

bool ShowsShimChain(const UefiEvidence& evidence, std::string_view cmdline, std::string_view roothash,
                    std::string* why) {
  if (!evidence.secure_boot_on) return No(why, "the event log does not show Secure Boot on (PCR 7, SecureBoot = 1)");
  if (!evidence.grub_kernel_cmdline) return No(why, "the event log shows no command line GRUB measured (PCR 8)");
  const std::string& measured = *evidence.grub_kernel_cmdline;
  if (cmdline != measured && cmdline != "BOOT_IMAGE=" + measured) {
    return No(why, "the kernel's command line is not the one GRUB measured (PCR 8's kernel_cmdline)");
  }
  if (!NamesRoot(measured, roothash)) {
    return No(why, "GRUB's measured command line does not name the verity root's hash");
  }
  return true;
}

bool ShowsFullChain(const UefiEvidence& evidence, std::string_view cmdline, std::string_view roothash,
                    std::string* why) {
  if (!evidence.secure_boot_on) return No(why, "the event log does not show Secure Boot on (PCR 7, SecureBoot = 1)");
  if (!evidence.uki_cmdline) return No(why, "the event log shows no unified kernel image's command line (PCR 11)");
  if (core::Sha256(cmdline) != *evidence.uki_cmdline) {
    return No(why, "the kernel's command line is not the one the signed UKI carried (PCR 11's .cmdline)");
  }
  if (!NamesRoot(cmdline, roothash)) return No(why, "the UKI's command line does not name the verity root's hash");
  return true;
}

}  // namespace volent::attest
