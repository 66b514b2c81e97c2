#include "volent/init/boot_record.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/errno_text.h"
#include "core/write_all.h"

namespace volent::init {

using core::Errno;
using core::WriteAll;

std::string BootRecordJson(const VerityRoot& root, const VerityStatus& status) {
  const nlohmann::ordered_json record = {{"profile", "verity-only"},     {"roothash", root.roothash},
                                         {"root_device", root.device},   {"verity_table", status.table},
                                         {"verity_status", status.status},
                                         {"verity_device", std::to_string(status.major) + ":" + std::to_string(status.minor)},
                                         {"init", "volent-init"}};
  // The kernel's table is ASCII; invalid UTF-8 is replaced all the same, since a
  // dump must never throw in PID 1.
  return record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

core::Status WriteBootRecord(const VerityRoot& root, const VerityStatus& status) {
  // The node (its own user, no capability) takes the kernel's answer from
  // this file: it and its folder must be root's alone, whatever was there.
  if (mkdir("/run/volent", 0755) != 0 && errno != EEXIST) {
    return Errno("mkdir /run/volent");
  }
  if (chown("/run/volent", 0, 0) != 0 || chmod("/run/volent", 0755) != 0) {
    return Errno("chown/chmod /run/volent");
  }
  const std::string text = BootRecordJson(root, status);
  // On /run (tmpfs), which a power cut empties: written, not synced.
  int fd = open(kBootRecordPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return Errno(std::string("create ") + kBootRecordPath);
  const bool written = WriteAll(fd, text);
  const int error = errno;
  close(fd);
  if (!written) return Errno(std::string("write ") + kBootRecordPath, error);
  return core::Status::Ok();
}

core::Status CopyEventLog(const std::string& from, const std::string& to) {
  int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return errno == ENOENT ? core::Status::Ok() : Errno("open " + from);
  std::string log;
  char buf[65536];
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(in);
      return Errno("read " + from, error);
    }
    if (n == 0) break;
    log.append(buf, static_cast<size_t>(n));
    if (log.size() > kMaxEventLog) {
      close(in);
      return core::Error{from + " is larger than " + std::to_string(kMaxEventLog) + " bytes; not copied"};
    }
  }
  close(in);
  int fd = open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return Errno("create " + to);
  const bool written = WriteAll(fd, log);
  const int error = errno;
  close(fd);
  if (!written) return Errno("write " + to, error);
  return core::Status::Ok();
}

}  // namespace volent::init
