// Internal to src/ampoule/sandbox: the parent side of starting a jail child, shared
// by SpawnJailed and CheckJailSupported.
#pragma once

#include <sys/types.h>

#include "ampoule/sandbox/jail_child.h"
#include "core/result.h"
#include "core/unique_fd.h"

namespace ampoule {

struct LaunchedChild {
  pid_t pid = -1;
  core::UniqueFd pidfd;
};

// Clones a child into new namespaces (or none when !plan.jailed), maps its
// ids, and lets it run RunJailChild(plan). Returns once the child has exec'd
// (or, with plan.probe_only, finished its set-up and begun to exit); on any
// failure the child is killed and reaped and the error says which step
// failed. Fills plan.sync_fd and plan.error_fd itself.
core::Result<LaunchedChild> LaunchJailChild(ChildPlan plan);

}  // namespace ampoule
