// A static program run inside the jail by src/ampoule/sandbox/jail_test.cc to check
// LockDownEngine (the engine's second seccomp stage).
//
// argv[1] is "lock" (call LockDownEngine first) or "nolock"; argv[2] the
// action: ok (allocate and print), exec-fd (execveat of descriptor 3, the
// number the launch filter allows), mmap-exec, mprotect-exec, dumpable
// (PR_SET_DUMPABLE 1). Each prints "RESULT <action> ..." if it returns.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "ampoule/sandbox/lockdown.h"

namespace {

void Say(const std::string& line) {
  if (write(1, line.data(), line.size()) < 0) _exit(3);
}

int Report(const std::string& action, long rc) {
  Say("RESULT " + action + (rc < 0 ? " failed: " + std::string(strerror(errno)) : " ok") + "\n");
  return 0;
}

int Run(const std::string& action) {
  if (action == "ok") {
    std::vector<std::string> many(10000, std::string(100, 'x'));
    return Report(action, static_cast<long>(many.size()) - 10000);
  }
  if (action == "exec-fd") {
    dup2(0, 3);
    char* argv[] = {nullptr};
    return Report(action, syscall(SYS_execveat, 3, "", argv, argv, AT_EMPTY_PATH));
  }
  if (action == "mmap-exec") {
    void* p = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return Report(action, p == MAP_FAILED ? -1 : 0);
  }
  if (action == "mprotect-exec") {
    void* p = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return Report(action, mprotect(p, 4096, PROT_READ | PROT_EXEC));
  }
  if (action == "dumpable") return Report(action, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
  Say("unknown action " + action + "\n");
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 64;
  if (std::string(argv[1]) == "lock") {
    core::Status locked = ampoule::LockDownEngine();
    if (!locked.ok()) {
      Say("LockDownEngine: " + locked.message() + "\n");
      return 2;
    }
    Say("locked\n");
  }
  return Run(argv[2]);
}
