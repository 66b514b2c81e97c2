#include "volent/boot/lockdown.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "ampoule/sandbox/seccomp_policy.h"
#include "core/errno_text.h"
#include "volent/attest/process_facts.h"

namespace volent::boot {
namespace {

// Nothing in the node, its libraries or the jail it starts makes these; an
// attacker inside the node would want them. Not listed, because the jail
// makes them: clone/unshare and the mount calls, pivot_root, set*id,
// sethostname, seccomp, prctl.
constexpr const char* kDenied[] = {
    "init_module",     "finit_module",      "delete_module",   "kexec_load",     "kexec_file_load",
    "reboot",          "swapon",            "swapoff",         "acct",           "settimeofday",
    "clock_settime",   "clock_adjtime",     "adjtimex",        "syslog",         "ptrace",
    "process_vm_readv", "process_vm_writev", "kcmp",           "pidfd_getfd",    "bpf",
    "perf_event_open", "add_key",           "request_key",     "keyctl",         "userfaultfd",
    "io_uring_setup",  "io_uring_enter",    "io_uring_register", "open_by_handle_at", "name_to_handle_at",
    "quotactl",        "iopl",              "ioperm",          "lookup_dcookie", "uselib",
    "vhangup",         "fanotify_init",     "personality",
};

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

std::span<const char* const> NodeDeniedSyscalls() { return kDenied; }

core::Result<std::string> LockDownNode() {
  auto before = attest::ReadProcessFacts();
  if (!before.ok()) return core::Error{"--lock-down: " + before.message()};
  if (before->uid == 0 || before->gid == 0) {
    return core::Error{"--lock-down: refusing to run as uid " + std::to_string(before->uid) + " gid " +
                          std::to_string(before->gid) +
                          "; the sealed image's PID 1 starts the node as its own user (uid 470)"};
  }
  if (before->cap_eff || before->cap_prm || before->cap_bnd) {
    return core::Error{"--lock-down: refusing to run with capabilities (effective " + Hex(before->cap_eff) +
                          ", permitted " + Hex(before->cap_prm) + ", bounding " + Hex(before->cap_bnd) +
                          "); the node needs none"};
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return core::Error{std::string("--lock-down: PR_SET_NO_NEW_PRIVS: ") + core::ErrnoText()};
  }
  CORE_RETURN_IF_ERROR(ampoule::LoadSeccompDenyList(kDenied, "--lock-down"));
  auto after = attest::ReadProcessFacts();
  if (!after.ok()) return core::Error{"--lock-down: " + after.message()};
  if (after->no_new_privs != 1 || after->seccomp != 2) {
    return core::Error{"--lock-down: the kernel says no_new_privs " + std::to_string(after->no_new_privs) +
                          ", seccomp " + std::to_string(after->seccomp) + " after the filter was loaded"};
  }
  return "locked down: uid " + std::to_string(after->uid) + " gid " + std::to_string(after->gid) +
         ", capabilities effective " + Hex(after->cap_eff) + " permitted " + Hex(after->cap_prm) + " bounding " +
         Hex(after->cap_bnd) + ", no_new_privs " + std::to_string(after->no_new_privs) + ", seccomp " +
         std::to_string(after->seccomp) + " (filter)";
}

}  // namespace volent::boot
