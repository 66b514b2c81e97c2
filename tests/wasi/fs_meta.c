// The file calls fs_write.c does not reach: posix_fallocate (fd_allocate),
// utimensat/futimens (path_ and fd_filestat_set_times), fd_renumber, and a
// directory listing that goes on while the folder changes.
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasi/api.h>

#include "guest_errno.h"

int main(void) {
  int fd = open("/input/grow.bin", O_RDWR | O_CREAT, 0644);
  TRY("fallocate", posix_fallocate(fd, 10, 90) == 0);
  struct stat st;
  fstat(fd, &st);
  printf("size after fallocate: %lld\n", (long long)st.st_size);
  int ro = open("/input/hello.txt", O_RDONLY);
  int r = posix_fallocate(ro, 0, 10);  // returns the error, not -1
  printf("fallocate on a read-only descriptor: %s\n", errno_name(r));

  // Times: explicit values, then "now" (virtual time, later than the epoch).
  struct timespec times[2] = {{1000, 5}, {2000, 7}};
  TRY("utimensat", utimensat(AT_FDCWD, "/input/grow.bin", times, 0) == 0);
  stat("/input/grow.bin", &st);
  printf("atime %lld.%ld mtime %lld.%ld\n", (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
         (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  // "Now" straight through the call: Debian's wasi-libc 2022 build refuses
  // UTIME_NOW in futimens itself (its two headers disagree on the value).
  __wasi_errno_t set = __wasi_fd_filestat_set_times((__wasi_fd_t)fd, 0, 0, __WASI_FSTFLAGS_MTIM_NOW);
  printf("mtime set to now: %s\n", set == 0 ? "OK" : errno_name(set));
  fstat(fd, &st);
  printf("atime kept: %d, mtime moved past 2024: %d\n", st.st_atim.tv_sec == 1000,
         st.st_mtim.tv_sec >= 1704067200);

  // fd_renumber: the file moves to the other number, which it replaces.
  write(fd, "renumbered", 10);
  __wasi_errno_t e = __wasi_fd_renumber((__wasi_fd_t)fd, (__wasi_fd_t)ro);
  printf("renumber: %s\n", e == 0 ? "OK" : errno_name(e));
  char buf[16] = {0};
  pread(ro, buf, 10, 0);
  printf("read through the new number: %.10s\n", buf);
  printf("the old number is closed: %s\n", close(fd) == 0 ? "no" : errno_name(errno));

  // A listing that goes on while the folder changes: names read before the
  // change are not repeated, the ones that stayed are not skipped.
  mkdir("/input/list", 0755);
  const char* names[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i) {
    char path[32];
    snprintf(path, sizeof path, "/input/list/%s", names[i]);
    close(open(path, O_WRONLY | O_CREAT, 0644));
  }
  // One entry per call (a small buffer, as a libc with a small buffer or a
  // long listing would read), resuming from each entry's cookie.
  int dir = open("/input/list", O_RDONLY | O_DIRECTORY);
  __wasi_dircookie_t cookie = 0;
  int seen = 0;
  printf("listing:");
  for (;;) {
    uint8_t buf[sizeof(__wasi_dirent_t) + 16];
    __wasi_size_t used = 0;
    if (__wasi_fd_readdir((__wasi_fd_t)dir, buf, sizeof buf, cookie, &used) != 0 || used == 0) break;
    __wasi_dirent_t entry;
    memcpy(&entry, buf, sizeof entry);
    cookie = entry.d_next;
    const char* name = (const char*)buf + sizeof entry;
    if (name[0] == '.') continue;
    printf(" %.*s", (int)entry.d_namlen, name);
    if (++seen == 2) {
      unlink("/input/list/d");                                 // not yet listed: gone
      close(open("/input/list/e", O_WRONLY | O_CREAT, 0644));  // new: listed at the end
      unlink("/input/list/a");                                 // listed already
    }
  }
  printf("\n");
  close(dir);
  return 0;
}
