#include "volent/init/selfcheck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <vector>

#include "core/errno_text.h"
#include "core/result.h"
#include "core/write_all.h"
#include "volent/init/console.h"
#include "volent/init/verity.h"

namespace volent::init {
namespace {

using Check = std::function<core::Status()>;
using core::Errno;

core::Status RootReadOnly() {
  struct statvfs fs;
  if (statvfs("/", &fs) != 0) return Errno("statvfs /", errno);
  if (!(fs.f_flag & ST_RDONLY)) return core::Error{"/ is mounted read-write"};
  int fd = open("/.volent-write-check", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    close(fd);
    return core::Error{"a file could be created in /"};
  }
  if (errno != EROFS) return Errno("creating a file in / failed, but not with EROFS", errno);
  return core::Status::Ok();
}

core::Status VerityActive(const VerityRoot& root, const std::string& device_path) {
  auto status = ReadVerityStatus();
  if (!status.ok()) return status.error();
  if (status->table.find(" " + root.roothash + " ") == std::string::npos) {
    return core::Error{"the kernel's table does not carry the command line's root hash: " + status->table};
  }
  if (status->status != "V") return core::Error{"the device's status is '" + status->status + "', not V (verified)"};
  struct stat device, mounted;
  if (stat(device_path.c_str(), &device) != 0) return Errno("stat " + device_path, errno);
  if (stat("/", &mounted) != 0) return Errno("stat /", errno);
  if (device.st_rdev != mounted.st_dev) return core::Error{"/ is not mounted from the verity device"};
  return core::Status::Ok();
}

core::Status DataWritable() {
  const char* path = "/data/.volent-write-check";
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno(std::string("create ") + path, errno);
  const bool written = core::WriteAll(fd, "ok\n");
  const int write_errno = errno;
  bool synced = written && fsync(fd) == 0;
  const int sync_errno = errno;
  close(fd);
  unlink(path);
  if (!written) return Errno("write", write_errno);
  if (!synced) return Errno("fsync on /data", sync_errno);
  return core::Status::Ok();
}

// Copies `from` to `to` (mode 0755).
core::Status Copy(const std::string& from, const std::string& to) {
  int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Errno("open " + from, errno);
  int out = open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (out < 0) {
    int err = errno;
    close(in);
    return Errno("create " + to, err);
  }
  std::vector<char> buffer(1 << 16);
  core::Status status = core::Status::Ok();
  for (;;) {
    ssize_t n = read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) status = Errno("read " + from, errno);
    if (n <= 0) break;
    if (!core::WriteAll(out, std::string_view(buffer.data(), static_cast<size_t>(n)))) {
      status = Errno("write " + to, errno);
      break;
    }
  }
  close(in);
  close(out);
  return status;
}

core::Status DataNoExec(const std::string& executable) {
  const std::string copy = "/data/.volent-exec-check";
  CORE_RETURN_IF_ERROR(Copy(executable, copy));
  struct statvfs fs;
  bool flagged = statvfs("/data", &fs) == 0 && (fs.f_flag & ST_NOEXEC);
  // The child reports execve's errno through a close-on-exec pipe: an exec
  // that succeeds closes the pipe with nothing written.
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return Errno("pipe", errno);
  pid_t pid = fork();
  if (pid < 0) return Errno("fork", errno);
  if (pid == 0) {
    char* argv[] = {const_cast<char*>(copy.c_str()), const_cast<char*>("--version"), nullptr};
    char* env[] = {nullptr};
    execve(argv[0], argv, env);
    int err = errno;
    (void)!write(pipe_fds[1], &err, sizeof err);
    _exit(127);
  }
  close(pipe_fds[1]);
  int err = 0;
  ssize_t n = read(pipe_fds[0], &err, sizeof err);
  close(pipe_fds[0]);
  if (n != sizeof err) kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  unlink(copy.c_str());
  if (n != sizeof err) return core::Error{"a binary copied to /data ran"};
  if (err != EACCES) return Errno("a binary copied to /data did not run, but not for EACCES", err);
  if (!flagged) return core::Error{"/data is not mounted noexec"};
  return core::Status::Ok();
}

// Walks the root's own filesystem (never another mount) collecting what a
// sealed root must not hold.
void FindShells(int dirfd, const std::string& path, dev_t root_dev, std::vector<std::string>* found) {
  DIR* dir = fdopendir(dirfd);
  if (!dir) {
    close(dirfd);
    return;
  }
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string full = (path == "/" ? "" : path) + "/" + name;
    struct stat st;
    if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != root_dev) continue;
    if (IsShellOrInterpreterName(name)) found->push_back(full);
    if (S_ISDIR(st.st_mode)) {
      int child = openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0) FindShells(child, full, root_dev, found);
    } else if (S_ISREG(st.st_mode)) {
      int fd = openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      char head[2] = {};
      if (fd >= 0 && read(fd, head, 2) == 2 && head[0] == '#' && head[1] == '!') found->push_back(full + " (a script)");
      if (fd >= 0) close(fd);
    }
  }
  closedir(dir);
}

core::Status NoShell() {
  struct stat root;
  if (stat("/", &root) != 0) return Errno("stat /", errno);
  int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open /", errno);
  std::vector<std::string> found;
  FindShells(fd, "/", root.st_dev, &found);
  if (found.empty()) return core::Status::Ok();
  std::string list;
  for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
  return core::Error{"found " + list};
}

}  // namespace

bool IsShellOrInterpreterName(const std::string& name) {
  static const char* const kExact[] = {"sh",   "bash",   "dash",   "ash",  "zsh",  "ksh",   "mksh", "csh",
                                       "tcsh", "fish",   "busybox", "toybox", "rbash", "node", "nodejs", "gdb",
                                       "su",   "sudo",   "ssh",    "sshd", "apt",  "apt-get", "dpkg", "login"};
  for (const char* e : kExact) {
    if (name == e) return true;
  }
  // Versioned interpreters: python3, python3.11, perl5.36.0, lua5.4 ...
  for (const char* prefix : {"python", "perl", "ruby", "lua", "php", "tclsh", "wish"}) {
    const size_t n = strlen(prefix);
    if (name.compare(0, n, prefix) != 0) continue;
    bool version = true;
    for (size_t i = n; i < name.size(); ++i) {
      if (!isdigit(static_cast<unsigned char>(name[i])) && name[i] != '.') version = false;
    }
    if (version) return true;
  }
  return false;
}

int RunSelfChecks(const VerityRoot& root, const std::string& device, const std::string& executable) {
  const std::pair<const char*, Check> checks[] = {
      {"root-read-only", RootReadOnly},
      {"verity-active", [&] { return VerityActive(root, device); }},
      {"data-writable", DataWritable},
      {"data-noexec", [&] { return DataNoExec(executable); }},
      {"no-shell", NoShell},
  };
  int failed = 0;
  for (const auto& [name, check] : checks) {
    core::Status s = check();
    Say(std::string("check ") + name + (s.ok() ? ": ok" : ": FAILED: " + s.message()));
    failed += s.ok() ? 0 : 1;
  }
  Say("checks: " + std::to_string(std::size(checks) - failed) + " passed, " + std::to_string(failed) + " failed");
  return failed;
}

}  // namespace volent::init
