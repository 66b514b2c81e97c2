/* Single-threaded stand-in for <pthread.h>, for building QuickJS against
 * wasi-libc (which has no threads). Part of the guest-runtime build, see
 * docs/runtimes.md.
 *
 * A guest has exactly one thread, so a mutex can never be contended: locking
 * and unlocking succeed and do nothing, which keeps QuickJS's class-id and
 * Atomics bookkeeping working. Anything that would need a second thread fails
 * with ENOSYS: creating a thread (QuickJS then throws "could not create
 * worker") and waiting on a condition variable (no other thread could ever
 * signal it; js.wasm also disables blocking, so Atomics.wait throws before
 * reaching it). */
#ifndef AMPOULE_COMPAT_PTHREAD_H
#define AMPOULE_COMPAT_PTHREAD_H

#include <errno.h>
#include <time.h>

/* wasi-libc (musl's headers) already defines the pthread types; take them
 * from there so the two never disagree. */
#define __NEED_pthread_t
#define __NEED_pthread_attr_t
#define __NEED_pthread_mutex_t
#define __NEED_pthread_mutexattr_t
#define __NEED_pthread_cond_t
#define __NEED_pthread_condattr_t
#include <bits/alltypes.h>

#define PTHREAD_MUTEX_INITIALIZER {{{0}}}
#define PTHREAD_COND_INITIALIZER {{{0}}}
#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_CREATE_DETACHED 1

static inline int pthread_attr_init(pthread_attr_t *a) { (void)a; return 0; }
static inline int pthread_attr_destroy(pthread_attr_t *a) { (void)a; return 0; }
static inline int pthread_attr_setdetachstate(pthread_attr_t *a, int s) { (void)a; (void)s; return 0; }
static inline int pthread_attr_setstacksize(pthread_attr_t *a, size_t n) { (void)a; (void)n; return 0; }

static inline int pthread_create(pthread_t *t, const pthread_attr_t *a,
                                 void *(*fn)(void *), void *arg) {
  (void)t; (void)a; (void)fn; (void)arg;
  return ENOSYS;
}
static inline int pthread_join(pthread_t t, void **ret) { (void)t; (void)ret; return ENOSYS; }
static inline int pthread_detach(pthread_t t) { (void)t; return ENOSYS; }
static inline pthread_t pthread_self(void) { return (pthread_t)0; }

static inline int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a) { (void)m; (void)a; return 0; }
static inline int pthread_mutex_destroy(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_lock(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_trylock(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_unlock(pthread_mutex_t *m) { (void)m; return 0; }

static inline int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) { (void)c; (void)a; return 0; }
static inline int pthread_cond_destroy(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_signal(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_broadcast(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) { (void)c; (void)m; return ENOSYS; }
static inline int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         const struct timespec *t) {
  (void)c; (void)m; (void)t;
  return ENOSYS;
}

#endif
