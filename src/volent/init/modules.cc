#include "volent/init/modules.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <vector>

#include "core/errno_text.h"
#include "core/unique_fd.h"
#include "core/write_all.h"

namespace volent::init {
namespace {

constexpr size_t kMaxLoadOrder = 64 * 1024;

core::Result<std::vector<std::string>> ReadLoadOrder(const std::string& dir) {
  const std::string path = dir + "/load-order";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::Error{"open " + path + ": " + core::ErrnoText()};
  std::string text(kMaxLoadOrder, '\0');
  ssize_t n = read(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n < 0) return core::Error{"read " + path + ": " + core::ErrnoText(err)};
  text.resize(static_cast<size_t>(n));
  std::vector<std::string> files;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string name = text.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    if (name.find('/') != std::string::npos || name.size() < 4 || name.substr(name.size() - 3) != ".ko") {
      return core::Error{path + " names '" + name + "', not a module file in that folder"};
    }
    files.push_back(name);
  }
  return files;
}

// "dm-verity.ko" -> "dm_verity": the name the kernel and the command line use.
std::string ModuleName(const std::string& file) {
  std::string name = file.substr(0, file.size() - 3);
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

}  // namespace

core::Status LoadModules(const std::string& dir, const std::map<std::string, std::string>& parameters,
                         std::vector<std::string>* skipped) {
  auto files = ReadLoadOrder(dir);
  if (!files.ok()) return files.error();
  for (const std::string& file : *files) {
    const std::string path = dir + "/" + file;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return core::Error{"open " + path + ": " + core::ErrnoText()};
    auto found = parameters.find(ModuleName(file));
    const char* values = found == parameters.end() ? "" : found->second.c_str();
    long rc = syscall(SYS_finit_module, fd, values, 0);
    int err = errno;
    close(fd);
    // ENODEV: the module's init found nothing of its kind on this machine
    // (efivarfs without UEFI, virtio_pci on a microvm). A module the root
    // needs and could not use shows as the missing disk right after.
    if (rc != 0 && err == ENODEV) {
      skipped->push_back(file);
    } else if (rc != 0 && err != EEXIST) {
      return core::Error{"load module " + file + ": " + core::ErrnoText(err)};
    }
  }
  return core::Status::Ok();
}

core::Status TurnOffModuleLoading() {
  core::UniqueFd fd(open("/proc/sys/kernel/modules_disabled", O_WRONLY | O_CLOEXEC));
  if (!fd.valid() || !core::WriteAll(fd.get(), "1\n")) {
    return core::Error{"turn module loading off (/proc/sys/kernel/modules_disabled): " + core::ErrnoText(errno)};
  }
  return core::Status::Ok();
}

core::Status WaitForPath(const std::string& path, long timeout_ms) {
  constexpr long kStepMs = 5;
  struct stat st;
  for (long waited = 0;; waited += kStepMs) {
    if (stat(path.c_str(), &st) == 0) return core::Status::Ok();
    if (waited >= timeout_ms) break;
    timespec step{0, kStepMs * 1000000};
    nanosleep(&step, nullptr);
  }
  return core::Error{path + " did not appear within " + std::to_string(timeout_ms) + " ms"};
}

}  // namespace volent::init
