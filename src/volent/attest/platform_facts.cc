#include "volent/attest/platform_facts.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/errno_text.h"
#include "core/file_read.h"

namespace volent::attest {

// EFI_GLOBAL_VARIABLE's GUID: where the firmware keeps SecureBoot.
constexpr char kSecureBootVariable[] = "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

std::string SecureBootState(const std::string& efi_dir, const std::string& efivars_dir) {
  struct stat st;
  if (stat(efi_dir.c_str(), &st) != 0) return "not-efi";
  // efivarfs: 4 bytes of attributes, then the value, one byte: 1 enabled.
  auto bytes = core::ReadFileCapped(efivars_dir + "/" + kSecureBootVariable, 64, nullptr,
                                             {.from = core::PathFrom::kUntrusted});
  if (!bytes || bytes->size() != 5) return "unknown";
  if ((*bytes)[4] == 1) return "enabled";
  if ((*bytes)[4] == 0) return "disabled";
  return "unknown";
}

namespace {

using core::Error;

constexpr size_t kMaxBootRecord = 4096;
constexpr size_t kMaxProcDevices = 64 * 1024;
constexpr char kVerityDevice[] = "volent-root";  // what volent-init makes (src/volent/init/verity.h)
constexpr long kSquashfsMagic = 0x73717368;

bool IsRootHash(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Whether `path` (lstat `st`) is owned by root and writable by nobody else.
core::Status WritableByRootAlone(const std::string& path, const struct stat& st, const char* what) {
  if (st.st_uid != 0) return Error{std::string(what) + " " + path + " is not owned by root"};
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return Error{std::string(what) + " " + path + " is writable by others than root"};
  return core::Status::Ok();
}

// "MAJOR:MINOR", each decimal.
bool ParseDeviceNumber(const std::string& text, uint32_t& major, uint32_t& minor) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() || text.size() > 21) return false;
  uint64_t parts[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::string part = i == 0 ? text.substr(0, colon) : text.substr(colon + 1);
    for (char c : part) {
      if (c < '0' || c > '9') return false;
      parts[i] = parts[i] * 10 + static_cast<uint64_t>(c - '0');
      if (parts[i] > UINT32_MAX) return false;
    }
  }
  major = static_cast<uint32_t>(parts[0]);
  minor = static_cast<uint32_t>(parts[1]);
  return true;
}

// The block major /proc/devices gives to device-mapper, or -1.
long DeviceMapperMajor(const std::string& devices) {
  std::istringstream lines(devices);
  bool block = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Block devices:") {
      block = true;
      continue;
    }
    if (line.empty()) {
      block = false;
      continue;
    }
    std::istringstream words(line);
    long major = -1;
    std::string name, rest;
    if (block && (words >> major >> name) && !(words >> rest) && name == "device-mapper") return major;
  }
  return -1;
}

// The space-separated words of `text`.
std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream words(text);
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

}  // namespace

core::Result<RootFs> StatRoot(const std::string& root) {
  struct stat st;
  struct statfs fs;
  if (stat(root.c_str(), &st) != 0) return Error{"cannot stat " + root + ": " + core::ErrnoText()};
  if (statfs(root.c_str(), &fs) != 0) return Error{"cannot statfs " + root + ": " + core::ErrnoText()};
  RootFs out;
  out.major = major(st.st_dev);
  out.minor = minor(st.st_dev);
  out.squashfs = static_cast<long>(fs.f_type) == kSquashfsMagic;
  out.read_only = (fs.f_flags & ST_RDONLY) != 0;
  return out;
}

BootFacts ReadBootFacts(const BootSources& sources) {
  using core::PathFrom;
  const std::string& record_path = sources.record_path;
  BootFacts facts;
  struct stat st;
  if (lstat(record_path.c_str(), &st) != 0) return facts;  // an ordinary host
  auto unsealed = [&](const std::string& why) {
    facts.why = "the boot record " + record_path + " is not believed: " + why;
    return facts;
  };
  auto text = core::ReadFileCapped(record_path, kMaxBootRecord, nullptr,
                                            {.from = PathFrom::kUntrusted, .refuse_writable_by_others = true});
  if (!text) return unsealed(text.message());
  if (st.st_uid != 0) return unsealed("not owned by root");
  auto record = nlohmann::json::parse(*text, nullptr, false);
  if (!record.is_object()) return unsealed("not a JSON object");
  auto field = [&](const char* name) {
    return record.contains(name) && record[name].is_string() ? record[name].get<std::string>() : std::string();
  };
  // The record only says what to look for; every fact below is the kernel's.
  const std::string recorded = field("roothash");
  if (field("profile") != "verity-only") return unsealed("its profile is not verity-only");
  if (!IsRootHash(recorded)) return unsealed("no root hash");

  auto root = sources.root ? sources.root() : StatRoot("/");
  if (!root) return unsealed(root.message());
  if (!root->squashfs) return unsealed("/ is not a squashfs (statfs)");
  if (!root->read_only) return unsealed("/ is not mounted read-only (statfs)");
  auto devices = core::ReadFileCapped(sources.proc_devices, kMaxProcDevices, nullptr,
                                               {.from = PathFrom::kUntrusted});
  if (!devices) return unsealed(devices.message());
  const long dm_major = DeviceMapperMajor(*devices);
  if (dm_major < 0) return unsealed(sources.proc_devices + " names no device-mapper block major");
  if (root->major != static_cast<uint32_t>(dm_major)) {
    return unsealed("/ is on device " + std::to_string(root->major) + ":" + std::to_string(root->minor) +
                    ", not a device-mapper device (major " + std::to_string(dm_major) + ")");
  }
  auto process = sources.process ? sources.process() : ReadProcessFacts();
  if (!process) return unsealed(process.message());
  core::Result<DmDevice> dm = core::Error{""};
  if (HasEffective(*process, CAP_SYS_ADMIN)) {
    dm = sources.dm ? sources.dm(kVerityDevice) : ReadDmDevice(kVerityDevice);
    if (!dm) return unsealed("the kernel's device-mapper does not describe " + std::string(kVerityDevice) + ": " +
                             dm.message());
  } else {
    // No CAP_SYS_ADMIN: PID 1 asked the kernel, and its answer counts only
    // from a record this process cannot have written.
    if (process->uid == 0) return unsealed("the node is root without CAP_SYS_ADMIN and cannot ask the kernel");
    if (auto s = WritableByRootAlone(record_path, st, "the record"); !s.ok()) return unsealed(s.message());
    const std::string folder = std::filesystem::path(record_path).parent_path().string();
    struct stat dir;
    if (lstat(folder.c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode)) return unsealed("no folder " + folder);
    if (auto s = WritableByRootAlone(folder, dir, "its folder"); !s.ok()) return unsealed(s.message());
    uint32_t major = 0, minor = 0;
    if (!ParseDeviceNumber(field("verity_device"), major, minor)) {
      return unsealed("it carries no verity_device (MAJOR:MINOR) as PID 1 read it from the kernel");
    }
    if (!record.contains("verity_table") || !record["verity_table"].is_string() ||
        !record.contains("verity_status") || !record["verity_status"].is_string()) {
      return unsealed("it carries no verity_table and verity_status as PID 1 read them from the kernel");
    }
    dm = DmDevice{major, minor, {{"verity", field("verity_table"), field("verity_status")}}};
  }
  if (dm->major != root->major || dm->minor != root->minor) {
    return unsealed("/ is on device " + std::to_string(root->major) + ":" + std::to_string(root->minor) + ", not on " +
                    kVerityDevice + " (" + std::to_string(dm->major) + ":" + std::to_string(dm->minor) + ")");
  }
  if (dm->targets.size() != 1 || dm->targets[0].type != "verity") {
    return unsealed(std::string(kVerityDevice) + " is not one verity target");
  }
  // The verity table: version, data and hash devices, block sizes, block
  // count, hash start, algorithm, root digest, salt, optional arguments.
  const std::vector<std::string> table = Words(dm->targets[0].table);
  if (table.size() < 10 || table[7] != "sha256" || !IsRootHash(table[8])) {
    return unsealed("the kernel's verity table of " + std::string(kVerityDevice) + " has no sha256 root hash");
  }
  if (dm->targets[0].status != "V") {
    return unsealed("the kernel's verity status is " + dm->targets[0].status.substr(0, 16) + ", not V (verified)");
  }
  if (table[8] != recorded) return unsealed("the kernel's verity table carries another root hash than the record");
  facts.profile = "verity-only";
  facts.verity_roothash = table[8];
  return facts;
}

core::Result<std::string> OwnBinarySha256() {
  // The kernel's link to the file this process was started from, hashed as
  // one pass over one open descriptor (streamed: a sanitizer build's binary
  // is over half a gigabyte).
  return core::Sha256OfRegularFile("/proc/self/exe", uint64_t{4} << 30, "the node's own binary");
}

core::Result<std::string> BootId(const std::string& path) {
  auto bytes = core::ReadFileCapped(path, 64, nullptr, {.from = core::PathFrom::kUntrusted});
  if (!bytes) return core::Error{"cannot read the boot id: " + bytes.message()};
  std::string id = *bytes;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (id.size() != 36) return core::Error{"the boot id in " + path + " is not a UUID"};
  return id;
}

}  // namespace volent::attest
