// A software TPM for tests (test code only): one swtpm with a fresh state
// folder on loopback ports, started under `timeout` so that it dies even if
// the test is killed before it stops it, and stopped when the object dies.
// Tests that need a TPM skip with the reason Start gives when swtpm is not
// installed.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace volent::attest::testing {

inline bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= rest.size();) {
    const size_t end = std::min(rest.find(':', start), rest.size());
    if (::access((rest.substr(start, end - start) + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

inline bool Listening(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

// One swtpm with a fresh state folder, serving on 127.0.0.1:port (commands)
// and port+1 (control), under `timeout` so that it dies even if the test
// process is killed before it stops it.
class SwTpm {
 public:
  // Null, with the reason in `why`, when swtpm is missing or will not start.
  static std::unique_ptr<SwTpm> Start(std::string& why) {
    if (!OnPath("swtpm") || !OnPath("timeout")) {
      why = "swtpm is not installed (apt-get install swtpm swtpm-tools)";
      return nullptr;
    }
    char tmpl[] = "/tmp/volent-swtpm-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      why = "mkdtemp failed";
      return nullptr;
    }
    std::unique_ptr<SwTpm> tpm(new SwTpm(tmpl));
    std::mt19937 random(std::random_device{}());
    for (int attempt = 0; attempt < 8; ++attempt) {
      const int port = 20000 + 2 * static_cast<int>(random() % 20000);
      if (!tpm->LockPort(port) || Listening(port) || Listening(port + 1)) continue;
      if (tpm->Spawn(port)) return tpm;
    }
    why = "swtpm did not start on 8 pairs of ports (see " + tpm->dir_ + "/swtpm.log)";
    return nullptr;
  }
  ~SwTpm() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);  // timeout passes it on to swtpm
      waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove_all(dir_);
    if (lock_fd_ >= 0) close(lock_fd_);
  }
  std::string tcti() const { return "swtpm:host=127.0.0.1,port=" + std::to_string(port_); }
  const std::string& dir() const { return dir_; }

 private:
  explicit SwTpm(std::string dir) : dir_(std::move(dir)) {}

  // Tests run in parallel, here and in other checkouts: a port pair is
  // taken by binding a name made of it in the abstract socket namespace
  // (released when the process ends, however it ends), so that two of them
  // never both find it free and one then talks to the other's swtpm.
  bool LockPort(int port) {
    if (lock_fd_ >= 0) close(lock_fd_);
    lock_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string name = "volent-swtpm-port-" + std::to_string(port);
    std::memcpy(addr.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: abstract
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    return lock_fd_ >= 0 && bind(lock_fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0;
  }

  bool Spawn(int port) {
    const std::vector<std::string> args = {
        "timeout", "-k", "5", "600", "swtpm", "socket", "--tpm2",
        "--server", "type=tcp,port=" + std::to_string(port) + ",bindaddr=127.0.0.1",
        "--ctrl", "type=tcp,port=" + std::to_string(port + 1) + ",bindaddr=127.0.0.1",
        "--tpmstate", "dir=" + dir_, "--flags", "not-need-init,startup-clear"};
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, (dir_ + "/swtpm.log").c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                     0644);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "timeout", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return false;
    for (int i = 0; i < 200; ++i) {  // up to 10 s on a busy machine
      if (waitpid(pid, nullptr, WNOHANG) == pid) return false;  // exited: the port was taken
      if (Listening(port)) {
        pid_ = pid;
        port_ = port;
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    return false;
  }

  std::string dir_;
  pid_t pid_ = 0;
  int port_ = 0;
  int lock_fd_ = -1;
};

}  // namespace volent::attest::testing
