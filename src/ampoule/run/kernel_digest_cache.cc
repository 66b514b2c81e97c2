#include "ampoule/run/kernel_digest_cache.h"

#include "core/hex.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>


namespace ampoule::run {
namespace {

std::string CacheFolder() {
  if (const char* dir = getenv("AMPOULE_CACHE_DIR"); dir && *dir) return std::string(dir) + "/kernel-digests";
  if (const char* dir = getenv("XDG_CACHE_HOME"); dir && *dir) return std::string(dir) + "/ampoule/kernel-digests";
  if (const char* home = getenv("HOME"); home && *home) return std::string(home) + "/.cache/ampoule/kernel-digests";
  return {};
}

// "size mtime_sec mtime_nsec ctime_sec ctime_nsec": what must not change.
std::string Identity(const struct stat& st) {
  std::ostringstream s;
  s << st.st_size << ' ' << st.st_mtim.tv_sec << ' ' << st.st_mtim.tv_nsec << ' ' << st.st_ctim.tv_sec << ' '
    << st.st_ctim.tv_nsec;
  return s.str();
}

}  // namespace

std::string CachedKernelDigest(int fd, kernel::Kernel& kernel) {
  struct stat st {};
  std::string folder = CacheFolder();
  if (fstat(fd, &st) != 0 || folder.empty()) return kernel.digest();
  std::string path = folder + "/" + std::to_string(uint64_t(st.st_dev)) + "-" + std::to_string(uint64_t(st.st_ino));
  std::string identity = Identity(st);

  std::ifstream in(path);
  std::string cached_identity, digest;
  if (std::getline(in, cached_identity) && std::getline(in, digest) && cached_identity == identity &&
      core::IsLowerHex(digest, 32)) {
    kernel.AcceptDigest(digest);
    return digest;
  }
  digest = kernel.digest();
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << identity << '\n' << digest << '\n';
    if (!out) return digest;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) unlink(tmp.c_str());
  return digest;
}

}  // namespace ampoule::run
