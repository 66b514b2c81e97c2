#include "ampoule/mcp/temp_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "core/errno_text.h"
#include "core/unique_fd.h"
#include "core/write_all.h"

namespace ampoule::mcp {

namespace fs = std::filesystem;

core::Result<std::unique_ptr<TempDir>> TempDir::Make(std::string_view purpose) {
  const char* base = getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/ampoule-mcp-" +
                        std::string(purpose) + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return core::Error{"cannot make a temporary folder like '" + pattern + "': " + core::ErrnoText() +
                 " (set TMPDIR to a writable folder)"};
  }
  return std::unique_ptr<TempDir>(new TempDir(buf.data()));
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

core::Result<std::string> TempDir::Write(std::string_view relative, std::string_view bytes) {
  fs::path rel(relative);
  if (relative.empty() || rel.is_absolute()) return core::Error{"invalid file name '" + std::string(relative) + "'"};
  for (const fs::path& part : rel) {
    if (part == ".." || part == ".") return core::Error{"invalid file name '" + std::string(relative) + "'"};
  }
  fs::path full = fs::path(path_) / rel;
  std::error_code ec;
  fs::create_directories(full.parent_path(), ec);
  if (ec) return core::Error{"cannot make '" + full.parent_path().string() + "': " + ec.message()};
  core::UniqueFd fd(open(full.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid() || !core::WriteAll(fd.get(), bytes) || close(fd.release()) != 0) {
    return core::Errno("cannot write '" + full.string() + "'");
  }
  return full.string();
}

}  // namespace ampoule::mcp
