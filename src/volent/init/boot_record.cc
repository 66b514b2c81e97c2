#include "volent/init/boot_record.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace volent::init {

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

ampoule::Status WriteBootRecord(const VerityRoot& root, const VerityStatus& status) {
  // The node (its own user, no capability) takes the kernel's answer from
  // this file: it and its folder must be root's alone, whatever was there.
  if (mkdir("/run/volent", 0755) != 0 && errno != EEXIST) {
    return ampoule::Error{std::string("mkdir /run/volent: ") + strerror(errno)};
  }
  if (chown("/run/volent", 0, 0) != 0 || chmod("/run/volent", 0755) != 0) {
    return ampoule::Error{std::string("chown/chmod /run/volent: ") + strerror(errno)};
  }
  const std::string text = BootRecordJson(root, status);
  int fd = open(kBootRecordPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return ampoule::Error{std::string("create ") + kBootRecordPath + ": " + strerror(errno)};
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    return ampoule::Error{std::string("write ") + kBootRecordPath + ": " + (n < 0 ? strerror(err) : "short write")};
  }
  return ampoule::Status::Ok();
}

}  // namespace volent::init
