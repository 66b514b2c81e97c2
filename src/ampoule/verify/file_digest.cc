#include "ampoule/verify/file_digest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ampoule/kernel/kernel_format.h"
#include "core/errno_text.h"
#include "core/hex.h"
#include "core/sha256.h"

namespace ampoule::verify {
namespace {

core::Error IoError(const std::string& path, const char* action) {
  return core::Error{"cannot " + std::string(action) + " " + path + ": " + core::ErrnoText()};
}

// Hashes everything readable from `fd` (a regular file) into `hasher`.
core::Status HashFd(int fd, const std::string& path, core::Sha256Hasher* hasher) {
  uint8_t buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(path, "read");
    if (n == 0) return core::Status::Ok();
    hasher->Update(std::span<const uint8_t>(buf, static_cast<size_t>(n)));
  }
}

}  // namespace

core::Result<std::string> Sha256File(const std::string& path) {
  core::Result<int> opened = core::OpenRegularFile(path, kernel::kMaxKernelFileBytes, "file");
  if (!opened.ok()) return opened.error();
  const int fd = *opened;
  core::Sha256Hasher hasher;
  core::Status hashed = HashFd(fd, path, &hasher);
  close(fd);
  if (!hashed.ok()) return hashed.error();
  return core::HexEncode(hasher.Finish());
}

core::Result<LoadedFile> LoadFile(const std::string& path, bool* too_large, core::PathFrom from) {
  core::ReadRules rules;
  rules.from = from;
  core::Result<std::string> bytes = core::ReadFileCapped(path, core::kMaxFileBytes, too_large, rules);
  if (!bytes.ok()) return bytes.error();
  std::string sha256 = core::Sha256Hex(*bytes);
  return LoadedFile{std::move(*bytes), std::move(sha256)};
}

}  // namespace ampoule::verify
