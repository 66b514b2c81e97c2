#include "ampoule/verify/file_digest.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ampoule/kernel/kernel_format.h"
#include "ampoule/receipt/hex.h"
#include "ampoule/receipt/sodium_init.h"

namespace ampoule::verify {
namespace {

Error IoError(const std::string& path, const char* action) {
  return Error{"cannot " + std::string(action) + " " + path + ": " + std::strerror(errno)};
}

// Hashes everything readable from `fd` (a regular file) into `state`.
Status HashFd(int fd, const std::string& path, crypto_hash_sha256_state* state) {
  unsigned char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(path, "read");
    if (n == 0) return Status::Ok();
    crypto_hash_sha256_update(state, buf, static_cast<unsigned long long>(n));
  }
}

}  // namespace

Result<std::string> Sha256File(const std::string& path) {
  receipt::EnsureSodium();
  Result<int> opened = receipt::OpenRegularFile(path, kernel::kMaxKernelFileBytes, "file");
  if (!opened.ok()) return opened.error();
  const int fd = *opened;
  crypto_hash_sha256_state state;
  crypto_hash_sha256_init(&state);
  Status hashed = HashFd(fd, path, &state);
  close(fd);
  if (!hashed.ok()) return hashed.error();
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&state, digest);
  return receipt::HexEncode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

Result<LoadedFile> LoadFile(const std::string& path, bool* too_large, receipt::PathFrom from) {
  receipt::ReadRules rules;
  rules.from = from;
  Result<std::string> bytes = receipt::ReadFileCapped(path, receipt::kMaxFileBytes, too_large, rules);
  if (!bytes.ok()) return bytes.error();
  std::string sha256 = receipt::Sha256Hex(*bytes);
  return LoadedFile{std::move(*bytes), std::move(sha256)};
}

}  // namespace ampoule::verify
