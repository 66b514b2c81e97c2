#include "volent/init/boot_record.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace volent::init {
namespace {

// A JSON string; the kernel's table is printable ASCII, but nothing here
// assumes it.
std::string Quote(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::string BootRecordJson(const VerityRoot& root, const VerityStatus& status) {
  return "{\"profile\": \"verity-only\", \"roothash\": " + Quote(root.roothash) +
         ", \"root_device\": " + Quote(root.device) + ", \"verity_table\": " + Quote(status.table) +
         ", \"verity_status\": " + Quote(status.status) + ", \"init\": \"volent-init\"}\n";
}

ampoule::Status WriteBootRecord(const VerityRoot& root, const VerityStatus& status) {
  if (mkdir("/run/volent", 0755) != 0 && errno != EEXIST) {
    return ampoule::Error{std::string("mkdir /run/volent: ") + strerror(errno)};
  }
  const std::string text = BootRecordJson(root, status);
  int fd = open(kBootRecordPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
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
