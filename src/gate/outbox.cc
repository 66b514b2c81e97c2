#include "gate/outbox.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "receipt/json_strict.h"

namespace ampoule::gate {
namespace {

Error Errno(const std::string& doing, const std::string& path) {
  return Error{"outbox: cannot " + doing + " " + path + ": " + strerror(errno)};
}

Status WriteAll(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write", path);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status SyncPath(const std::string& path, int flags) {
  int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno("open", path);
  const int rc = fsync(fd);
  close(fd);
  if (rc != 0) return Errno("sync", path);
  return Status::Ok();
}

}  // namespace

Status PrepareOutbox(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"outbox: cannot create the folder " + dir + ": " + ec.message()};
  if (access(dir.c_str(), W_OK | X_OK) != 0) return Errno("write to the folder", dir);
  return Status::Ok();
}

std::string OutboxMessage(const DecisionRow& send) {
  nlohmann::json message = {
      {"decision_id", send.id},
      {"kind", send.kind},
      {"idempotency_key", send.idempotency_key},
      {"fields", send.fields},
      {"receipt_sha256", send.receipt_sha256},
      {"decided_at", send.decided_at},
  };
  return receipt::DumpJson(message, 2) + "\n";
}

Result<std::string> DeliverToOutbox(const DecisionRow& send) {
  const std::string dir = send.outbox;
  if (Status s = PrepareOutbox(dir); !s.ok()) return s.error();
  const std::string name = "send-" + std::to_string(send.id) + ".json";
  const std::string final_path = dir + "/" + name;
  const std::string temp_path = dir + "/." + name + "." + std::to_string(getpid()) + ".tmp";

  int fd = open(temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create", temp_path);
  Status written = WriteAll(fd, OutboxMessage(send), temp_path);
  if (written.ok() && fsync(fd) != 0) written = Errno("sync", temp_path);
  close(fd);
  if (!written.ok()) {
    unlink(temp_path.c_str());
    return written.error();
  }
  // link() fails with EEXIST instead of replacing: the first delivery wins.
  const int linked = link(temp_path.c_str(), final_path.c_str());
  const int link_errno = errno;
  unlink(temp_path.c_str());
  if (linked != 0 && link_errno != EEXIST) {
    errno = link_errno;
    return Errno("deliver to", final_path);
  }
  if (Status s = SyncPath(dir, O_RDONLY | O_DIRECTORY); !s.ok()) return s.error();
  return final_path;
}

}  // namespace ampoule::gate
