/* Stand-in for <dlfcn.h> under WASI, for building QuickJS against wasi-libc: a
 * WebAssembly module cannot load native code, so every call fails and
 * dlerror() says why (QuickJS reports it when a script imports a .so). */
#ifndef AMPOULE_COMPAT_DLFCN_H
#define AMPOULE_COMPAT_DLFCN_H

#define RTLD_LAZY 1
#define RTLD_NOW 2
#define RTLD_GLOBAL 0x100
#define RTLD_LOCAL 0

static inline void *dlopen(const char *file, int mode) { (void)file; (void)mode; return 0; }
static inline void *dlsym(void *handle, const char *name) { (void)handle; (void)name; return 0; }
static inline int dlclose(void *handle) { (void)handle; return -1; }
static inline char *dlerror(void) {
  return (char *)"native shared libraries cannot be loaded under WASI";
}

#endif
