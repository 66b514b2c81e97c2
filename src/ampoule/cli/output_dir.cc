#include "ampoule/cli/output_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "ampoule/run/output_files.h"
#include "core/errno_text.h"
#include "core/file_write.h"
#include "core/unique_fd.h"

namespace ampoule::cli {
namespace {

core::Error Failed(const std::string& what, const std::string& name) {
  return core::Errno("cannot write output file '" + name + "' (" + what + ")");
}

}  // namespace

core::Status WriteOutputFiles(const std::string& dir, const std::vector<run::OutputFileBytes>& files) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return core::Error{"--outputs: cannot create folder '" + dir + "': " + ec.message()};
  core::UniqueFd root(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return core::Errno("--outputs: cannot open folder '" + dir + "'");
  for (const run::OutputFileBytes& f : files) {
    CORE_RETURN_IF_ERROR(run::CheckOutputName(f.name));
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
    // A rename replaces whatever the leaf was (a link too, never followed).
    CORE_RETURN_IF_ERROR(core::WriteFileAtomicallyAt(at.get(), f.name.substr(start), f.bytes, {}, f.name));
  }
  return core::Status::Ok();
}

}  // namespace ampoule::cli
