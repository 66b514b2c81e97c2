// LockDownEngine: PR_SET_DUMPABLE 0, PR_SET_NO_NEW_PRIVS, then the kEngine filter.
#include "ampoule/sandbox/lockdown.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include <string>

#include "ampoule/sandbox/seccomp_policy.h"
#include "core/errno_text.h"

namespace ampoule {

core::Status LockDownEngine() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return core::Error{std::string("lock-down: prctl: ") + core::ErrnoText()};
  return LoadSeccompFilter(SeccompStage::kEngine);
}

}  // namespace ampoule
