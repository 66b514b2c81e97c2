// What the node's own process may do, as the kernel says in
// /proc/self/status: its user and group, its effective, permitted and
// bounding capability sets, PR_SET_NO_NEW_PRIVS and its seccomp mode. The
// attestation report states them ("process", docs/attestation.md), so that a
// verifier sees the sealed image's node runs as its own user with no
// capability, no_new_privs and a seccomp filter
// (docs/decisions/0050-image-env-and-node-user.md); and the boot facts
// (platform_facts.h) ask whether the node may read the kernel's
// device-mapper itself.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace volent::attest {

struct ProcessFacts {
  uint32_t uid = 0, gid = 0;  // the effective ones
  uint64_t cap_eff = 0, cap_prm = 0, cap_bnd = 0;
  int no_new_privs = 0;  // 1 when set
  int seccomp = 0;       // 0 none, 1 strict, 2 filter
};

// Parses a /proc/PID/status text. An error names the line that is missing
// or malformed.
core::Result<ProcessFacts> ParseProcessStatus(const std::string& text);

// ParseProcessStatus of `path` (this process's by default).
core::Result<ProcessFacts> ReadProcessFacts(const std::string& path = "/proc/self/status");

// Whether capability number `cap` (linux/capability.h) is in the effective set.
inline bool HasEffective(const ProcessFacts& p, int cap) { return cap >= 0 && cap < 64 && (p.cap_eff >> cap) & 1; }

// The report's "process" object: {"uid", "gid", "cap_eff", "cap_prm",
// "cap_bnd" (16 hex digits each, as the kernel writes them), "no_new_privs",
// "seccomp"}.
nlohmann::json ProcessFactsJson(const ProcessFacts& p);

}  // namespace volent::attest
