#include "ampoule/cli/output_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ampoule/run/output_files.h"
#include "core/unique_fd.h"

namespace ampoule::cli {
namespace {

Error Failed(const std::string& what, const std::string& name) {
  return Error{"cannot write output file '" + name + "' (" + what + "): " + strerror(errno)};
}

// Writes `bytes` as `leaf` in folder `dir`: a new temporary file, then a
// rename over whatever `leaf` was (a rename replaces a link, never follows
// it).
Status WriteLeaf(int dir, const std::string& leaf, const std::string& bytes, const std::string& name) {
  std::string tmp = "." + leaf + ".tmp" + std::to_string(getpid());
  core::UniqueFd fd(openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Failed("create", name);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e = Failed("write", name);
      unlinkat(dir, tmp.c_str(), 0);
      return e;
    }
    done += size_t(n);
  }
  if (fsync(fd.get()) != 0 || renameat(dir, tmp.c_str(), dir, leaf.c_str()) != 0) {
    Error e = Failed("finish", name);
    unlinkat(dir, tmp.c_str(), 0);
    return e;
  }
  return Status::Ok();
}

}  // namespace

Status WriteOutputFiles(const std::string& dir, const std::vector<run::OutputFileBytes>& files) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"--outputs: cannot create folder '" + dir + "': " + ec.message()};
  core::UniqueFd root(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return Error{"--outputs: cannot open folder '" + dir + "': " + strerror(errno)};
  for (const run::OutputFileBytes& f : files) {
    AMP_RETURN_IF_ERROR(run::CheckOutputName(f.name));
    core::UniqueFd at(dup(root.get()));
    size_t start = 0;
    for (size_t slash = f.name.find('/'); slash != std::string::npos;
         start = slash + 1, slash = f.name.find('/', start)) {
      std::string part = f.name.substr(start, slash - start);
      if (mkdirat(at.get(), part.c_str(), 0755) != 0 && errno != EEXIST) return Failed("make folder", f.name);
      core::UniqueFd next(openat(at.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (next.get() < 0) return Failed("open folder '" + part + "', which must be a real folder", f.name);
      at = std::move(next);
    }
    AMP_RETURN_IF_ERROR(WriteLeaf(at.get(), f.name.substr(start), f.bytes, f.name));
  }
  return Status::Ok();
}

}  // namespace ampoule::cli
