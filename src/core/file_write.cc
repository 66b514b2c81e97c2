#include "core/file_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "core/errno_text.h"
#include "core/fault_injection.h"
#include "core/unique_fd.h"
#include "core/write_all.h"

namespace core {
namespace {

using fault::Fail;
using fault::Op;

// A stale temporary file (a crash's) may carry the name this process would
// pick (after a reboot, the same pid and thread id are likely): the next
// name is tried.
constexpr int kTempNameAttempts = 100;
constexpr size_t kMaxLeafInTempName = 200;

// The folder and the last component of `path`.
std::pair<std::string, std::string> Split(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

Error StepFailed(const std::string& path, std::string_view step, int error) {
  return Error{"cannot write '" + path + "' (" + std::string(step) + "): " + ErrnoText(error)};
}

// Closes `fd`, always (Linux frees the descriptor even when close fails),
// reporting whether the close succeeded.
bool Close(UniqueFd& fd) {
  if (Fail(Op::kClose)) {
    const int error = errno;
    ::close(fd.release());
    errno = error;
    return false;
  }
  return ::close(fd.release()) == 0;
}

bool SyncFolderFd(int fd) { return !Fail(Op::kFolderSync) && fsync(fd) == 0; }

// The temporary file: created in the folder `dir`, named after `leaf` (cut
// so that the name stays under NAME_MAX), a dot file so that listings skip
// it. Sets `*name`.
UniqueFd CreateTemp(int dir, const std::string& leaf, mode_t mode, std::string* name) {
  const std::string base = "." + leaf.substr(0, kMaxLeafInTempName) + ".tmp" + std::to_string(getpid()) + "." + std::to_string(syscall(SYS_gettid));
  for (int attempt = 0; attempt < kTempNameAttempts; ++attempt) {
    *name = base + (attempt == 0 ? "" : "-" + std::to_string(attempt));
    UniqueFd fd(openat(dir, name->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (fd.valid() || errno != EEXIST) return fd;
  }
  return UniqueFd();
}

// Steps 1 to 4: the temporary file `*temp` in `dir`, holding `bytes`, synced
// and closed. On failure it is removed.
Status WriteTemp(int dir, const std::string& path, const std::string& leaf, std::string_view bytes,
                 const WriteOptions& options, std::string* temp) {
  UniqueFd fd = CreateTemp(dir, leaf, options.mode, temp);
  if (!fd.valid()) return StepFailed(path, "create a temporary file", errno);
  const char* step = nullptr;
  if (options.exact_mode && fchmod(fd.get(), options.mode) != 0) {
    step = "set its mode";
  } else if (!WriteAll(fd.get(), bytes)) {
    step = "write";
  } else if (Fail(Op::kFsync) || fsync(fd.get()) != 0) {
    step = "sync the file";
  }
  int error = errno;
  if (!Close(fd) && step == nullptr) {
    step = "close the file";
    error = errno;
  }
  if (step == nullptr) return Status::Ok();
  unlinkat(dir, temp->c_str(), 0);
  return StepFailed(path, step, error);
}

// Step 5: the temporary file takes the name `leaf`, replacing what was
// there, or (create_only) only if nothing was.
Status Publish(int dir, const std::string& path, const std::string& temp, const std::string& leaf,
               bool create_only) {
  if (!create_only) {
    if (!Fail(Op::kRename) && renameat(dir, temp.c_str(), dir, leaf.c_str()) == 0) return Status::Ok();
    const int error = errno;
    unlinkat(dir, temp.c_str(), 0);
    return StepFailed(path, "rename over the old file", error);
  }
  // link(2) fails with EEXIST when the name is taken, by anything.
  const bool linked = !Fail(Op::kRename) && linkat(dir, temp.c_str(), dir, leaf.c_str(), 0) == 0;
  const int error = errno;
  unlinkat(dir, temp.c_str(), 0);
  if (linked) return Status::Ok();
  if (error == EEXIST) return Error{"cannot write '" + path + "': it already exists", ErrorKind::kConflict};
  return StepFailed(path, "link the new file", error);
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view bytes, const WriteOptions& options) {
  const auto [folder, leaf] = Split(path);
  if (leaf.empty()) return Error{"cannot write '" + path + "': it names a folder, not a file"};
  UniqueFd dir(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return StepFailed(path, "open its folder", errno);
  return WriteFileAtomicallyAt(dir.get(), leaf, bytes, options, path);
}

Status WriteFileAtomicallyAt(int folder, const std::string& leaf, std::string_view bytes,
                             const WriteOptions& options, const std::string& name) {
  std::string temp;
  CORE_RETURN_IF_ERROR(WriteTemp(folder, name, leaf, bytes, options, &temp));
  CORE_RETURN_IF_ERROR(Publish(folder, name, temp, leaf, options.create_only));
  if (!SyncFolderFd(folder)) {
    return StepFailed(name, "sync the folder; the new file is in place but may not survive a power cut", errno);
  }
  return Status::Ok();
}

Status RenameDurably(const std::string& from, const std::string& to) {
  if (Fail(Op::kRename) || rename(from.c_str(), to.c_str()) != 0) {
    return Errno("cannot move '" + from + "' to '" + to + "'");
  }
  const std::string to_folder = Split(to).first;
  const std::string from_folder = Split(from).first;
  Status synced = SyncFolder(to_folder);
  if (synced.ok() && from_folder != to_folder) synced = SyncFolder(from_folder);
  if (!synced.ok()) {
    return Error{"moved '" + from + "' to '" + to + "', but the move may not survive a power cut: " + synced.message()};
  }
  return Status::Ok();
}

Status SyncFolder(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid() || !SyncFolderFd(fd.get())) return Errno("cannot sync the folder '" + path + "'");
  return Status::Ok();
}

}  // namespace core
