#include "core/file_read.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/errno_text.h"
#include "core/hex.h"
#include "core/sha256.h"
#include "core/unique_fd.h"

namespace core {
namespace {

Error IoError(const std::string& path, const char* action) {
  return Error{"cannot " + std::string(action) + " " + path + ": " + core::ErrnoText()};
}

Error TooLarge(const std::string& path, size_t limit, bool* over_limit) {
  if (over_limit) *over_limit = true;
  return Error{path + " is larger than the " + std::to_string(limit) + "-byte limit"};
}

const char* KindName(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO or pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

std::string ModeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// This process's user, or root (who can do anything anyway).
bool OwnedByUs(const struct stat& st) { return st.st_uid == geteuid() || st.st_uid == 0; }

Error ForeignOwner(const std::string& path, const struct stat& st, const char* could) {
  const std::string us = std::to_string(geteuid());
  return Error{"refusing " + path + ": it is owned by uid " + std::to_string(st.st_uid) + ", not by this process's user (uid " +
               us + ") or root, so its owner could " + could + "; run 'chown " + us + " " + path +
               "' after checking its content"};
}

// What `rules` says about a file of this kind and mode, before any byte is read.
Status CheckKind(const struct stat& st, const std::string& path, const ReadRules& rules) {
  if (S_ISDIR(st.st_mode)) return Error{"cannot read " + path + ": it is a directory"};
  if (!S_ISREG(st.st_mode)) {
    if (rules.from == PathFrom::kUntrusted) {
      return Error{"cannot read " + path + ": it is " + KindName(st.st_mode) +
                   "; a path named by a draft or request must be a regular file"};
    }
    if (S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode)) {
      return Error{"cannot read " + path + ": it is " + KindName(st.st_mode) +
                   "; give a regular file or a pipe"};
    }
  }
  if (rules.refuse_writable_by_others && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return Error{"refusing " + path + ": its group or others may write it (mode " + ModeText(st.st_mode) +
                 "), so anyone among them could change what it decides; run 'chmod go-w " + path +
                 "' after checking its content"};
  }
  if (rules.refuse_foreign_owner && !OwnedByUs(st)) return ForeignOwner(path, st, "change what it decides");
  return Status::Ok();
}

// Waits until `fd` (a stream) has data or its end, for at most `idle_ms`.
Status WaitReadable(int fd, const std::string& path, int idle_ms) {
  for (;;) {
    struct pollfd p = {fd, POLLIN, 0};
    int n = poll(&p, 1, idle_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(path, "wait for");
    if (n == 0) {
      return Error{"cannot read " + path + ": nothing came from it for " + std::to_string(idle_ms / 1000) +
                   " s (a FIFO that no program writes to, or a terminal?)"};
    }
    return Status::Ok();
  }
}

}  // namespace

Result<std::string> ReadFdCapped(int fd, const std::string& path, size_t limit, bool* over_limit,
                                 const ReadRules& rules) {
  if (over_limit) *over_limit = false;
  struct stat st;
  if (fstat(fd, &st) != 0) return IoError(path, "stat");
  if (Status kind = CheckKind(st, path, rules); !kind.ok()) return kind.error();
  // A regular file reports its size up front; other kinds are counted as read.
  if (S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) > limit) {
    return TooLarge(path, limit, over_limit);
  }
  // A stream opened without blocking is polled before each read: a read of a
  // FIFO that no writer has opened yet would return 0, an end that is not
  // one.
  const bool stream = !S_ISREG(st.st_mode) && (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0;
  std::string data;
  char buf[1 << 16];
  for (;;) {
    if (stream) {
      if (Status ready = WaitReadable(fd, path, rules.pipe_idle_ms); !ready.ok()) return ready.error();
    }
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || (stream && errno == EAGAIN))) continue;
    if (n < 0) return IoError(path, "read");
    if (n == 0) break;
    if (data.size() + static_cast<size_t>(n) > limit) return TooLarge(path, limit, over_limit);
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

Result<std::string> ReadFileCapped(const std::string& path, size_t limit, bool* over_limit,
                                   const ReadRules& rules) {
  if (over_limit) *over_limit = false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (rules.refuse_symlink ? O_NOFOLLOW : 0));
  if (fd < 0 && errno == ELOOP && rules.refuse_symlink) {
    return Error{"refusing " + path + ": it is a symbolic link, and a file that decides trust is read only as itself; "
                 "replace the link with the file (after checking the file's content)"};
  }
  if (fd < 0) return IoError(path, "open");
  Result<std::string> data = ReadFdCapped(fd, path, limit, over_limit, rules);
  close(fd);
  return data;
}

Status CheckTrustFolder(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return IoError(dir, "stat");
  if (!S_ISDIR(st.st_mode)) return Error{dir + " is not a directory"};
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return Error{"refusing the folder " + dir + ": its group or others may write it (mode " + ModeText(st.st_mode) +
                 "), so any of them could replace the files in it that decide trust; run 'chmod go-w " + dir +
                 "' after checking its content"};
  }
  if (!OwnedByUs(st)) return ForeignOwner(dir, st, "replace the files in it that decide trust");
  return Status::Ok();
}

Result<int> OpenRegularFile(const std::string& path, uint64_t limit, const char* what) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return IoError(std::string(what) + " " + path, "open");
  struct stat st;
  std::string problem;
  if (fstat(fd, &st) != 0) {
    problem = "cannot stat " + std::string(what) + " " + path + ": " + core::ErrnoText();
  } else if (!S_ISREG(st.st_mode)) {
    problem = "cannot read " + std::string(what) + " " + path + ": it is " + KindName(st.st_mode) +
              "; give a regular file";
  } else if (static_cast<uint64_t>(st.st_size) > limit) {
    problem = std::string(what) + " " + path + " has " + std::to_string(st.st_size) +
              " bytes, over the " + std::to_string(limit) + "-byte limit";
  }
  if (problem.empty()) return fd;
  close(fd);
  return Error{problem};
}

Result<std::string> Sha256OfRegularFile(const std::string& path, uint64_t limit, const char* what) {
  Result<int> opened = OpenRegularFile(path, limit, what);
  if (!opened.ok()) return opened.error();
  UniqueFd fd(*opened);
  Sha256Hasher hasher;
  uint64_t total = 0;
  uint8_t chunk[1 << 16];
  for (;;) {
    ssize_t n = read(fd.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(std::string(what) + " " + path, "read");
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > limit) {
      return Error{std::string(what) + " " + path + " grew past the " + std::to_string(limit) +
                   "-byte limit while it was read"};
    }
    hasher.Update(std::span<const uint8_t>(chunk, static_cast<size_t>(n)));
  }
  return HexEncode(hasher.Finish());
}

}  // namespace core
