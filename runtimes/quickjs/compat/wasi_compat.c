/* The calls wasi_compat.h declares that need a definition; contracts there. */
#include "wasi_compat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Appends the components of PATH to OUT (an absolute path of LEN bytes),
 * applying "." and ".."; returns the new length or -1 if it would not fit. */
static long append_components(char *out, long len, const char *path) {
  while (*path) {
    while (*path == '/') path++;
    const char *end = path;
    while (*end && *end != '/') end++;
    long n = end - path;
    if (n == 0) break;
    if (n == 1 && path[0] == '.') {
      /* stays where it is */
    } else if (n == 2 && path[0] == '.' && path[1] == '.') {
      while (len > 1 && out[len - 1] != '/') len--;
      if (len > 1) len--; /* drop the separator too, unless at the root */
      out[len] = '\0';
    } else {
      long sep = (len > 1) ? 1 : 0;
      if (len + sep + n >= PATH_MAX) return -1;
      if (sep) out[len++] = '/';
      memcpy(out + len, path, (size_t)n);
      len += n;
      out[len] = '\0';
    }
    path = end;
  }
  return len;
}

char *realpath(const char *restrict path, char *restrict resolved) {
  if (path == NULL || path[0] == '\0') {
    errno = path ? ENOENT : EINVAL;
    return NULL;
  }
  char buf[PATH_MAX];
  long len;
  if (path[0] == '/') {
    strcpy(buf, "/");
    len = 1;
  } else {
    if (getcwd(buf, sizeof buf) == NULL) return NULL;
    len = (long)strlen(buf);
  }
  len = append_components(buf, len, path);
  if (len < 0) {
    errno = ENAMETOOLONG;
    return NULL;
  }
  struct stat st;
  if (stat(buf, &st) != 0) return NULL;
  if (resolved == NULL) return strdup(buf);
  memcpy(resolved, buf, (size_t)len + 1);
  return resolved;
}

/* wasi-libc declares tmpfile() (marked unavailable) but defines none: WASI has
 * no directory a guest could rely on for scratch files. */
FILE *tmpfile(void) {
  errno = ENOSYS;
  return NULL;
}
