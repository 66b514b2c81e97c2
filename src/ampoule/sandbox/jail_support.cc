// CheckJailSupported: makes a whole jail without running anything in it.
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ampoule/sandbox/jail.h"
#include "ampoule/sandbox/jail_launch.h"
#include "ampoule/sandbox/seccomp_policy.h"

namespace ampoule {

core::Status CheckJailSupported() {
  // The filter is compiled for a descriptor the probe never execs.
  core::Result<SeccompProgram> filter = CompileSeccompFilter(SeccompStage::kLaunch, 0);
  if (!filter.ok()) return filter.error();
  sock_fprog fprog = filter->fprog();
  char* nothing[] = {nullptr};
  ChildPlan plan;
  plan.jailed = true;
  plan.probe_only = true;
  plan.exec_fd = -1;  // nothing to run
  plan.argv = nothing;
  plan.envp = nothing;
  plan.seccomp = &fprog;
  core::Result<LaunchedChild> child = LaunchJailChild(plan);
  if (!child.ok()) return child.error();
  siginfo_t info = {};
  syscall(SYS_waitid, P_PIDFD, child->pidfd.get(), &info, WEXITED, nullptr);
  if (info.si_code != CLD_EXITED || info.si_status != 0)
    return core::Error{"jail: the probe jail ended unexpectedly (status " +
                 std::to_string(info.si_status) + ")"};
  return core::Status::Ok();
}

}  // namespace ampoule
