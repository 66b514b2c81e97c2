#include "volent/init/root.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errno_text.h"

namespace volent::init {
namespace {

constexpr unsigned long kNoRun = MS_NOEXEC | MS_NOSUID | MS_NODEV;

core::Status MountAt(const std::string& source, const std::string& target, const char* type,
                        unsigned long flags, const char* options) {
  if (mount(source.c_str(), target.c_str(), type, flags, options) != 0) {
    return core::Error{"mount " + source + " on " + target + " (" + type + "): " + core::ErrnoText()};
  }
  return core::Status::Ok();
}

// Removes the initramfs's own files (the init binary, the modules): after the
// switch they would be unreachable yet held in memory. Only this filesystem:
// never descends into another mount.
void RemoveTree(int dirfd, dev_t root_dev) {
  DIR* dir = fdopendir(dirfd);
  if (!dir) {
    close(dirfd);
    return;
  }
  while (dirent* entry = readdir(dir)) {
    const char* name = entry->d_name;
    if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != root_dev) continue;
    if (S_ISDIR(st.st_mode)) {
      int child = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0) RemoveTree(child, root_dev);
      unlinkat(dirfd, name, AT_REMOVEDIR);
    } else {
      unlinkat(dirfd, name, 0);
    }
  }
  closedir(dir);
}

}  // namespace

core::Status MountRoot(const std::string& verity_device, const std::string& data_device) {
  const std::string root = kNewRoot;
  if (mkdir(kNewRoot, 0755) != 0 && errno != EEXIST) {
    return core::Error{std::string("mkdir ") + kNewRoot + ": " + core::ErrnoText()};
  }
  CORE_RETURN_IF_ERROR(MountAt(verity_device, root, "squashfs", MS_RDONLY | MS_NODEV, nullptr));
  CORE_RETURN_IF_ERROR(MountAt(data_device, root + "/data", "ext4", kNoRun | MS_NOATIME, "errors=remount-ro"));
  CORE_RETURN_IF_ERROR(MountAt("tmpfs", root + "/run", "tmpfs", kNoRun, "mode=0755,size=16m"));
  CORE_RETURN_IF_ERROR(MountAt("tmpfs", root + "/tmp", "tmpfs", kNoRun, "mode=1777,size=64m"));
  return core::Status::Ok();
}

core::Status SwitchRoot() {
  const std::string root = kNewRoot;
  for (const char* m : {"/dev", "/proc", "/sys"}) {
    CORE_RETURN_IF_ERROR(MountAt(m, root + m, "", MS_MOVE, nullptr));
  }
  struct stat st;
  if (stat("/", &st) == 0) {
    int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) RemoveTree(fd, st.st_dev);
  }
  if (chdir(kNewRoot) != 0) return core::Error{std::string("chdir ") + kNewRoot + ": " + core::ErrnoText()};
  CORE_RETURN_IF_ERROR(MountAt(".", "/", "", MS_MOVE, nullptr));
  if (chroot(".") != 0 || chdir("/") != 0) return core::Error{std::string("chroot: ") + core::ErrnoText()};
  return core::Status::Ok();
}

}  // namespace volent::init
