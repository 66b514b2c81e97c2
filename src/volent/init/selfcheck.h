// The sealed image checked from inside (volent.test=checks): what the image
// build checked on the squashfs, checked again on the running machine.
//
//   root-read-only   / refuses a new file (EROFS) and is mounted read-only
//   verity-active    the root is the verity device with the command line's
//                    root hash, and no corruption has been seen
//   data-writable    /data takes a file, written and synced
//   data-noexec      a copy of the node's own binary on /data does not run
//                    (execve fails with EACCES)
//   no-shell         no shell, interpreter or script anywhere in the root
//
// Each prints "volent-init: check NAME: ok" or "check NAME: FAILED: WHY",
// then "volent-init: checks: P passed, F failed".
#pragma once

#include <string>

#include "volent/init/cmdline.h"

namespace volent::init {

// Runs every check after the switch into the root. Returns the failures.
// `device`: the verity device's node; `executable`: a program of the root
// to copy to /data.
int RunSelfChecks(const VerityRoot& root, const std::string& device, const std::string& executable);

// Whether `name` names a shell or an interpreter (sh, bash, busybox,
// python3.11, perl ...): what the root must not hold.
bool IsShellOrInterpreterName(const std::string& name);

}  // namespace volent::init
