#include "volent/init/verity.h"

#include "core/errno_text.h"
#include "volent/init/device_mapper.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

namespace volent::init {
namespace {

constexpr uint64_t kBlock = 4096;
constexpr size_t kBuffer = 16384;  // a dm_ioctl, one target and its parameters

core::Error DmError(const char* step, int errnum) {
  return core::Error{std::string("device-mapper ") + step + " " + kVerityName + ": " + core::ErrnoText(errnum)};
}

// A zeroed ioctl buffer naming kVerityName: the header, then room for data.
std::vector<char> Request() {
  std::vector<char> buffer(kBuffer, 0);
  auto* io = reinterpret_cast<dm_ioctl*>(buffer.data());
  io->version[0] = DM_VERSION_MAJOR;
  io->version[1] = 0;
  io->version[2] = 0;
  io->data_size = kBuffer;
  io->data_start = sizeof(dm_ioctl);
  strncpy(io->name, kVerityName, DM_NAME_LEN - 1);
  return buffer;
}

class Control {
 public:
  Control() : fd_(open("/dev/mapper/control", O_RDWR | O_CLOEXEC)) {}
  ~Control() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }
  core::Status Call(unsigned long request, std::vector<char>& buffer, const char* step) const {
    if (ioctl(fd_, request, buffer.data()) != 0) return DmError(step, errno);
    return core::Status::Ok();
  }

 private:
  int fd_;
};

}  // namespace

std::string VerityTable(const VerityRoot& root) {
  return "1 " + root.device + " " + root.device + " 4096 4096 " + std::to_string(root.data_blocks) + " " +
         std::to_string(root.hash_start) + " sha256 " + root.roothash + " " + root.salt + " 1 panic_on_corruption";
}

core::Result<std::string> CreateVerityDevice(const VerityRoot& root) {
  Control control;
  if (control.fd() < 0) {
    return core::Error{std::string("open /dev/mapper/control: ") + core::ErrnoText() + " (dm-mod not loaded?)"};
  }
  auto create = Request();
  CORE_RETURN_IF_ERROR(control.Call(DM_DEV_CREATE, create, "create"));
  const dev_t dev = reinterpret_cast<dm_ioctl*>(create.data())->dev;

  auto load = Request();
  auto* io = reinterpret_cast<dm_ioctl*>(load.data());
  io->target_count = 1;
  io->flags = DM_READONLY_FLAG;
  auto* target = reinterpret_cast<dm_target_spec*>(load.data() + sizeof(dm_ioctl));
  target->sector_start = 0;
  target->length = root.data_blocks * (kBlock / 512);
  strncpy(target->target_type, "verity", DM_MAX_TYPE_NAME - 1);
  const std::string table = VerityTable(root);
  char* parameters = reinterpret_cast<char*>(target + 1);
  if (sizeof(dm_ioctl) + sizeof(dm_target_spec) + table.size() + 1 > kBuffer) {
    return core::Error{"the verity table is too long"};
  }
  memcpy(parameters, table.c_str(), table.size() + 1);
  target->next = 0;

  auto remove = [&] {
    auto request = Request();
    (void)control.Call(DM_DEV_REMOVE, request, "remove");
  };
  if (auto s = control.Call(DM_TABLE_LOAD, load, "load table"); !s.ok()) {
    remove();
    return core::Error{s.message() + " (table: " + table + ")"};
  }
  auto resume = Request();  // DM_DEV_SUSPEND without DM_SUSPEND_FLAG resumes
  if (auto s = control.Call(DM_DEV_SUSPEND, resume, "resume"); !s.ok()) {
    remove();
    return s.error();
  }
  return "/dev/dm-" + std::to_string(minor(dev));
}

core::Status ReadEveryBlock(const std::string& device) {
  int fd = open(device.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::Error{"open " + device + ": " + core::ErrnoText()};
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return core::Error{"read " + device + ": " + core::ErrnoText(err) + " (a block that does not match its hash)"};
    }
    if (n == 0) break;
  }
  close(fd);
  return core::Status::Ok();
}

core::Result<VerityStatus> ReadVerityStatus() {
  auto device = ReadDmDevice(kVerityName);
  if (!device.ok()) return device.error();
  if (device->targets.size() != 1 || device->targets[0].type != "verity") {
    return core::Error{std::string(kVerityName) + " has " + std::to_string(device->targets.size()) +
                          " targets, not the one verity target"};
  }
  return VerityStatus{device->targets[0].table, device->targets[0].status, device->major, device->minor};
}

}  // namespace volent::init
