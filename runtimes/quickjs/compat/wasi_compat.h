/* Force-included (-include) into every QuickJS source built for wasm32-wasi.
 *
 * wasi-libc leaves out the POSIX calls that WASI preview 1 cannot express:
 * processes, pipes, descriptor duplication, user ids, signals to other
 * processes. QuickJS's std/os modules call them, so they are declared here and
 * fail the way POSIX lets them fail, with errno = ENOSYS; QuickJS turns that
 * into an ordinary JavaScript error or error code (for example os.exec throws
 * "fork error"). Nothing here pretends to succeed.
 *
 * wasi_compat.c defines the rest: realpath(), which does real work because
 * QuickJS's module loader needs it to name imported files, and tmpfile(),
 * which wasi-libc declares but does not define (it fails with ENOSYS). */
#ifndef AMPOULE_COMPAT_WASI_COMPAT_H
#define AMPOULE_COMPAT_WASI_COMPAT_H

#include <errno.h>
#include <stdio.h>
#include <sys/types.h>

static inline pid_t fork(void) { errno = ENOSYS; return -1; }
static inline int execve(const char *path, char *const argv[], char *const envp[]) {
  (void)path; (void)argv; (void)envp;
  errno = ENOSYS;
  return -1;
}
static inline int pipe(int fds[2]) { (void)fds; errno = ENOSYS; return -1; }
static inline int dup(int fd) { (void)fd; errno = ENOSYS; return -1; }
static inline int dup2(int from, int to) { (void)from; (void)to; errno = ENOSYS; return -1; }
static inline int setuid(uid_t uid) { (void)uid; errno = ENOSYS; return -1; }
static inline int setgid(gid_t gid) { (void)gid; errno = ENOSYS; return -1; }
static inline int kill(pid_t pid, int sig) { (void)pid; (void)sig; errno = ENOSYS; return -1; }
static inline FILE *popen(const char *command, const char *mode) {
  (void)command; (void)mode;
  errno = ENOSYS;
  return NULL;
}
static inline int pclose(FILE *stream) { (void)stream; errno = ENOSYS; return -1; }

/* Resolves PATH against the current directory and removes "." and ".."
 * components and repeated slashes, without following symbolic links (WASI
 * preopens make the guest's file system a plain tree). Returns RESOLVED
 * (PATH_MAX bytes, or a malloc'd buffer when NULL) or NULL with errno set:
 * ENOENT if the path does not exist, ENAMETOOLONG if the result would not fit. */
char *realpath(const char *restrict path, char *restrict resolved);

#endif
