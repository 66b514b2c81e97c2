#include "volent/init/mounts.h"

#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <string>

#include "core/errno_text.h"

namespace volent::init {
namespace {

// nosuid and noexec wherever nothing is meant to run from: none of these
// filesystems holds programs.
constexpr unsigned long kSafe = MS_NOSUID | MS_NOEXEC;

constexpr MountPoint kEarlyMounts[] = {
    {"/proc", "proc", kSafe | MS_NODEV},
    {"/sys", "sysfs", kSafe | MS_NODEV},
    {"/dev", "devtmpfs", kSafe},  // device nodes: no MS_NODEV
};

// Read-only: the node reads the event log and SecureBoot, nothing writes.
constexpr MountPoint kFirmwareMounts[] = {
    {"/sys/kernel/security", "securityfs", kSafe | MS_NODEV | MS_RDONLY},       // the TPM's event log
    {"/sys/firmware/efi/efivars", "efivarfs", kSafe | MS_NODEV | MS_RDONLY},  // only under UEFI
};

core::Error MountError(const MountPoint& m, const char* step, int errnum) {
  return core::Error{std::string(step) + " " + m.target + " (" + m.fstype + "): " + core::ErrnoText(errnum)};
}

}  // namespace

std::span<const MountPoint> EarlyMounts() { return kEarlyMounts; }
std::span<const MountPoint> FirmwareMounts() { return kFirmwareMounts; }

core::Status Mount(const MountPoint& m) {
  if (mkdir(m.target, 0755) != 0 && errno != EEXIST) return MountError(m, "mkdir", errno);
  if (mount(m.fstype, m.target, m.fstype, m.flags, nullptr) != 0 && errno != EBUSY) {
    return MountError(m, "mount", errno);
  }
  return core::Status::Ok();
}

}  // namespace volent::init
