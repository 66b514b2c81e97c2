#include "volent/init/node_user.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "core/errno_text.h"
#include "volent/init/console.h"

namespace volent::init {
namespace {

constexpr int kMaxDepth = 64;  // the node's folders are a few levels deep

// fchownat of every entry under `dirfd`, depth first, on device `dev` only.
core::Status ChownTree(int dirfd, dev_t dev, int depth, const std::string& where) {
  if (depth > kMaxDepth) return core::Error{"/data is nested deeper than " + std::to_string(kMaxDepth) + " at " + where};
  DIR* dir = fdopendir(dirfd);
  if (!dir) {
    close(dirfd);
    return core::Error{"opendir " + where + ": " + core::ErrnoText()};
  }
  core::Status status = core::Status::Ok();
  while (dirent* entry = readdir(dir)) {
    const char* name = entry->d_name;
    if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != dev) continue;
    if (S_ISDIR(st.st_mode)) {
      int child = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) {
        status = core::Error{"open " + where + "/" + name + ": " + core::ErrnoText()};
        break;
      }
      status = ChownTree(child, dev, depth + 1, where + "/" + name);
      if (!status.ok()) break;
    }
    if ((st.st_uid != kNodeUid || st.st_gid != kNodeGid) &&
        fchownat(dirfd, name, kNodeUid, kNodeGid, AT_SYMLINK_NOFOLLOW) != 0) {
      status = core::Error{"chown " + where + "/" + name + ": " + core::ErrnoText()};
      break;
    }
  }
  closedir(dir);
  return status;
}

}  // namespace

core::Status PrepareNodeData(const char* data) {
  int fd = open(data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return core::Error{std::string("open ") + data + ": " + core::ErrnoText()};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return core::Error{std::string("stat ") + data + ": " + core::ErrnoText(err)};
  }
  if (st.st_uid != kNodeUid || st.st_gid != kNodeGid) {
    Say(std::string("giving ") + data + " to the node's user " + std::to_string(kNodeUid) + ":" +
        std::to_string(kNodeGid));
    int walk = dup(fd);
    if (walk < 0) {
      close(fd);
      return core::Error{std::string("dup: ") + core::ErrnoText()};
    }
    if (auto s = ChownTree(walk, st.st_dev, 0, data); !s.ok()) {
      close(fd);
      return s;
    }
    if (fchown(fd, kNodeUid, kNodeGid) != 0) {
      int err = errno;
      close(fd);
      return core::Error{std::string("chown ") + data + ": " + core::ErrnoText(err)};
    }
  }
  int rc = fchmod(fd, 0700);
  int err = errno;
  close(fd);
  if (rc != 0) return core::Error{std::string("chmod ") + data + ": " + core::ErrnoText(err)};
  return core::Status::Ok();
}

void PrepareTpmDevices() {
  for (const char* device : {"/dev/tpmrm0", "/dev/tpm0"}) {
    struct stat st;
    if (lstat(device, &st) != 0 || !S_ISCHR(st.st_mode)) continue;
    if (chown(device, 0, kNodeGid) != 0 || chmod(device, 0660) != 0) SayError(std::string("chown ") + device, errno);
  }
}

bool BecomeNodeUser() {
  // The bounding set first (it needs CAP_SETPCAP, gone after setuid).
  for (int cap = 0; cap <= 63; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return false;
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return false;
  if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0) return false;
  if (setgroups(0, nullptr) != 0) return false;
  if (setresgid(kNodeGid, kNodeGid, kNodeGid) != 0) return false;
  // From root to another uid with KEEPCAPS off: the permitted and effective
  // sets are cleared by the kernel here.
  if (setresuid(kNodeUid, kNodeUid, kNodeUid) != 0) return false;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return true;
}

}  // namespace volent::init
