#include "volent/attest/platform_facts.h"

#include <sys/stat.h>

#include "core/file_read.h"
#include "core/sha256.h"

namespace volent::attest {

// EFI_GLOBAL_VARIABLE's GUID: where the firmware keeps SecureBoot.
constexpr char kSecureBootVariable[] = "SecureBoot-8be4df61-93ca-11d2-aa0d-e98c0e37f7b5";

std::string SecureBootState(const std::string& efi_dir, const std::string& efivars_dir) {
  struct stat st;
  if (stat(efi_dir.c_str(), &st) != 0) return "not-efi";
  // efivarfs: 4 bytes of attributes, then the value, one byte: 1 enabled.
  auto bytes = ampoule::core::ReadFileCapped(efivars_dir + "/" + kSecureBootVariable, 64, nullptr,
                                             {.from = ampoule::core::PathFrom::kUntrusted});
  if (!bytes || bytes->size() != 5) return "unknown";
  if ((*bytes)[4] == 1) return "enabled";
  if ((*bytes)[4] == 0) return "disabled";
  return "unknown";
}

ampoule::Result<std::string> OwnBinarySha256() {
  // The kernel's link to the file this process was started from; the file is
  // read once and that snapshot is what the report names.
  auto bytes = ampoule::core::ReadFileCapped("/proc/self/exe", size_t{512} << 20);
  if (!bytes) return ampoule::Error{"cannot read the node's own binary: " + bytes.message()};
  return ampoule::core::Sha256Hex(*bytes);
}

ampoule::Result<std::string> BootId(const std::string& path) {
  auto bytes = ampoule::core::ReadFileCapped(path, 64, nullptr, {.from = ampoule::core::PathFrom::kUntrusted});
  if (!bytes) return ampoule::Error{"cannot read the boot id: " + bytes.message()};
  std::string id = *bytes;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (id.size() != 36) return ampoule::Error{"the boot id in " + path + " is not a UUID"};
  return id;
}

}  // namespace volent::attest
