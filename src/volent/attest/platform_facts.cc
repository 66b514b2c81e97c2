#include "volent/attest/platform_facts.h"

#include <sys/stat.h>

#include <optional>
#include <sstream>

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

namespace {

constexpr size_t kMaxBootRecord = 4096;
constexpr size_t kMaxMountinfo = 256 * 1024;

bool IsRootHash(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The "MAJOR:MINOR FSTYPE OPTIONS" of the mount at / in a mountinfo text
// (proc(5): ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [FIELDS] - FSTYPE SOURCE SUPER);
// the last such line wins, as the last mount over / is the one in use.
struct RootMount {
  std::string device, fstype, options;
};
std::optional<RootMount> FindRootMount(const std::string& mountinfo) {
  std::optional<RootMount> found;
  std::istringstream lines(mountinfo);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string id, parent, device, root, mountpoint, options, word;
    if (!(words >> id >> parent >> device >> root >> mountpoint >> options) || mountpoint != "/") continue;
    while (words >> word && word != "-") {
    }
    std::string fstype;
    if (!(words >> fstype)) continue;
    found = RootMount{device, fstype, options};
  }
  return found;
}

}  // namespace

BootFacts ReadBootFacts(const std::string& record_path, const std::string& mountinfo_path,
                        const std::string& sys_dev_block) {
  using ampoule::core::PathFrom;
  BootFacts facts;
  struct stat st;
  if (lstat(record_path.c_str(), &st) != 0) return facts;  // an ordinary host
  auto unsealed = [&](const std::string& why) {
    facts.why = "the boot record " + record_path + " is not believed: " + why;
    return facts;
  };
  auto text = ampoule::core::ReadFileCapped(record_path, kMaxBootRecord, nullptr,
                                            {.from = PathFrom::kUntrusted, .refuse_writable_by_others = true});
  if (!text) return unsealed(text.message());
  if (st.st_uid != 0) return unsealed("not owned by root");
  auto record = nlohmann::json::parse(*text, nullptr, false);
  if (!record.is_object()) return unsealed("not a JSON object");
  auto field = [&](const char* name) {
    return record.contains(name) && record[name].is_string() ? record[name].get<std::string>() : std::string();
  };
  const std::string roothash = field("roothash");
  if (field("profile") != "verity-only") return unsealed("its profile is not verity-only");
  if (!IsRootHash(roothash)) return unsealed("no root hash");
  if (field("verity_status") != "V") return unsealed("the verity status is not V (verified)");
  if (field("verity_table").find(" " + roothash + " ") == std::string::npos) {
    return unsealed("the kernel's verity table does not carry the root hash");
  }
  auto mountinfo = ampoule::core::ReadFileCapped(mountinfo_path, kMaxMountinfo, nullptr,
                                                 {.from = PathFrom::kUntrusted});
  if (!mountinfo) return unsealed(mountinfo.message());
  auto root = FindRootMount(*mountinfo);
  if (!root) return unsealed("no mount at / in " + mountinfo_path);
  if (root->fstype != "squashfs") return unsealed("/ is " + root->fstype + ", not squashfs");
  if (root->options != "ro" && root->options.rfind("ro,", 0) != 0) return unsealed("/ is not mounted read-only");
  // sysfs files say 4096 bytes whatever they hold: the cap is above that.
  auto name = ampoule::core::ReadFileCapped(sys_dev_block + "/" + root->device + "/dm/name", 8192, nullptr,
                                            {.from = PathFrom::kUntrusted});
  if (!name || *name != "volent-root\n") return unsealed("/ is not on the device-mapper device volent-root");
  facts.profile = "verity-only";
  facts.verity_roothash = roothash;
  return facts;
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
