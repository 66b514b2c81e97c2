#include "volent/init/device_mapper.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "core/errno_text.h"

namespace volent::init {
namespace {

using core::Error;

constexpr size_t kDmBuffer = 16384;            // a dm_ioctl, a few targets and their parameters
constexpr uint32_t kMiscMajor = 10;            // the misc character devices
constexpr uint32_t kMapperControlMinor = 236;  // MAPPER_CTRL_MINOR

// One DM_TABLE_STATUS call: with the table's parameters or the status.
core::Status DmTableStatus(int fd, const std::string& name, bool table, DmDevice& out) {
  alignas(dm_ioctl) std::array<char, kDmBuffer> buffer{};
  auto* io = reinterpret_cast<dm_ioctl*>(buffer.data());
  io->version[0] = DM_VERSION_MAJOR;
  io->data_size = kDmBuffer;
  io->data_start = sizeof(dm_ioctl);
  io->flags = table ? DM_STATUS_TABLE_FLAG : 0;
  std::strncpy(io->name, name.c_str(), DM_NAME_LEN - 1);
  if (ioctl(fd, DM_TABLE_STATUS, io) != 0) {
    const int err = errno;  // EACCES without CAP_SYS_ADMIN
    return Error{"device-mapper status of " + name + ": " + core::ErrnoText(err),
                 err == EACCES || err == EPERM ? core::ErrorKind::kUnavailable : core::ErrorKind::kUnknown};
  }
  if (io->flags & DM_BUFFER_FULL_FLAG) return Error{"device-mapper status of " + name + " is too long"};
  if (io->data_start < sizeof(dm_ioctl) || io->data_size > kDmBuffer || io->data_start > io->data_size ||
      io->target_count > 64) {
    return Error{"device-mapper status of " + name + ": an answer out of its bounds"};
  }
  out.major = major(io->dev);
  out.minor = minor(io->dev);
  // Each target: a dm_target_spec, its text (NUL-terminated), then the next
  // at `next` bytes from the start of the data.
  const size_t data = io->data_start, end = io->data_size;
  size_t at = data;
  if (table) out.targets.clear();
  for (uint32_t i = 0; i < io->target_count; ++i) {
    if (at + sizeof(dm_target_spec) > end || at % alignof(dm_target_spec) != 0) {
      return Error{"device-mapper status of " + name + ": a target out of its bounds"};
    }
    dm_target_spec spec;
    std::memcpy(&spec, buffer.data() + at, sizeof spec);
    const char* text = buffer.data() + at + sizeof spec;
    const std::string words(text, strnlen(text, end - at - sizeof spec));
    const std::string type(spec.target_type, strnlen(spec.target_type, sizeof spec.target_type));
    if (table) {
      out.targets.push_back({type, words, ""});
    } else if (i < out.targets.size() && out.targets[i].type == type) {
      out.targets[i].status = words;
    } else {
      return Error{"device-mapper status of " + name + " changed between two calls"};
    }
    if (i + 1 < io->target_count) {
      if (spec.next == 0 || data + spec.next <= at) return Error{"device-mapper status of " + name + ": a bad target"};
      at = data + spec.next;
    }
  }
  if (!table && io->target_count != out.targets.size()) {
    return Error{"device-mapper status of " + name + " changed between two calls"};
  }
  return core::Status::Ok();
}

}  // namespace

core::Result<DmDevice> ReadDmDevice(const std::string& name, const std::string& control) {
  const int fd = open(control.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    const int err = errno;
    return Error{"cannot open " + control + ": " + core::ErrnoText(err),
                 err == EACCES || err == EPERM ? core::ErrorKind::kUnavailable : core::ErrorKind::kUnknown};
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != kMiscMajor ||
      minor(st.st_rdev) != kMapperControlMinor) {
    close(fd);
    return Error{control + " is not the device-mapper's control device (character device 10:236)"};
  }
  DmDevice device;
  core::Status status = DmTableStatus(fd, name, /*table=*/true, device);
  if (status.ok()) status = DmTableStatus(fd, name, /*table=*/false, device);
  close(fd);
  if (!status.ok()) return status.error();
  return device;
}

}  // namespace volent::init
