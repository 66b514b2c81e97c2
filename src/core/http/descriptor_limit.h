// Raises this process's open-file limit to its hard limit: every connection
// is a descriptor, and the usual soft limit (1,024) is below what a node
// with 1,500 model calls in flight, or the mock model serving them, holds
// (docs/models.md). Returns the limit now in force (SIZE_MAX for no limit; 0 when
// it cannot be read). The callers say what is too low for them.
#pragma once

#include <sys/resource.h>

#include <cstddef>
#include <cstdint>

namespace core::httpd {

inline size_t RaiseDescriptorLimit() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    struct rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return static_cast<size_t>(limit.rlim_cur);
}

}  // namespace core::httpd
