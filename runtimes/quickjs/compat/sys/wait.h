/* Stand-in for <sys/wait.h> under WASI, for building QuickJS against wasi-libc:
 * a guest cannot create processes, so there is never a child to wait for. */
#ifndef AMPOULE_COMPAT_SYS_WAIT_H
#define AMPOULE_COMPAT_SYS_WAIT_H

#include <errno.h>
#include <sys/types.h>

#define WNOHANG 1
#define WUNTRACED 2
#define WEXITSTATUS(s) (((s) & 0xff00) >> 8)
#define WTERMSIG(s) ((s) & 0x7f)
#define WIFEXITED(s) (!WTERMSIG(s))
#define WIFSIGNALED(s) (((s) & 0xffff) - 1U < 0xffu)

static inline pid_t waitpid(pid_t pid, int *status, int options) {
  (void)pid; (void)status; (void)options;
  errno = ECHILD;
  return -1;
}

#endif
