#include "ampoule/mcp/temp_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace ampoule::mcp {

namespace fs = std::filesystem;

Result<std::unique_ptr<TempDir>> TempDir::Make(std::string_view purpose) {
  const char* base = getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/ampoule-mcp-" +
                        std::string(purpose) + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return Error{"cannot make a temporary folder like '" + pattern + "': " + strerror(errno) +
                 " (set TMPDIR to a writable folder)"};
  }
  return std::unique_ptr<TempDir>(new TempDir(buf.data()));
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Result<std::string> TempDir::Write(std::string_view relative, std::string_view bytes) {
  fs::path rel(relative);
  if (relative.empty() || rel.is_absolute()) return Error{"invalid file name '" + std::string(relative) + "'"};
  for (const fs::path& part : rel) {
    if (part == ".." || part == ".") return Error{"invalid file name '" + std::string(relative) + "'"};
  }
  fs::path full = fs::path(path_) / rel;
  std::error_code ec;
  fs::create_directories(full.parent_path(), ec);
  if (ec) return Error{"cannot make '" + full.parent_path().string() + "': " + ec.message()};
  int fd = open(full.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Error{"cannot write '" + full.string() + "': " + strerror(errno)};
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = strerror(errno);
      close(fd);
      return Error{"cannot write '" + full.string() + "': " + why};
    }
    done += size_t(n);
  }
  if (close(fd) != 0) return Error{"cannot write '" + full.string() + "': " + strerror(errno)};
  return full.string();
}

}  // namespace ampoule::mcp
