// Tries to get out of /input and to make the host hold more than the run's
// filesystem caps allow. Every attempt must end in an errno for the guest:
// EPERM for escapes (never WASI's ENOTCAPABLE), ENOSPC for bytes, EDQUOT for the number of files,
// ENAMETOOLONG for depth. Run with small caps by wasi_run_test.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_errno.h"

int main(void) {
  // Escapes: an absolute link (refused when made), a link that climbs above
  // the preopen, a relative path that does.
  errno = 0;
  printf("absolute link: %s\n", symlink("/etc/passwd", "/input/abs") == 0 ? "MADE" : errno_name(errno));
  symlink("../../etc/passwd", "/input/up");
  errno = 0;
  printf("climbing link: %s\n", open("/input/up", O_RDONLY) >= 0 ? "OPENED" : errno_name(errno));
  mkdir("/input/a", 0755);
  symlink("../../..", "/input/a/b");
  errno = 0;
  printf("climbing folder link: %s\n",
         open("/input/a/b/etc/passwd", O_RDONLY) >= 0 ? "OPENED" : errno_name(errno));

  // Bytes: write 4 KiB blocks until the cap refuses one.
  int fd = open("/input/big", O_WRONLY | O_CREAT, 0644);
  static char block[4096];
  memset(block, 'x', sizeof block);
  long long written = 0;
  ssize_t n;
  errno = 0;
  while ((n = write(fd, block, sizeof block)) > 0) written += n;
  printf("wrote %lld bytes, then %s\n", written, errno_name(errno));
  errno = 0;
  printf("ftruncate past the cap: %s\n", ftruncate(fd, 1 << 30) == 0 ? "OK" : errno_name(errno));
  close(fd);
  unlink("/input/big");
  fd = open("/input/big2", O_WRONLY | O_CREAT, 0644);
  printf("after unlink, writing again: %s\n", write(fd, block, sizeof block) > 0 ? "OK" : errno_name(errno));
  close(fd);

  // Files: create until refused.
  int files = 0;
  char path[64];
  for (;;) {
    snprintf(path, sizeof path, "/input/f%d", files);
    errno = 0;
    fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0) break;
    close(fd);
    ++files;
  }
  printf("created %d files, then %s\n", files, errno_name(errno));
  for (int i = 0; i < files; ++i) {
    snprintf(path, sizeof path, "/input/f%d", i);
    unlink(path);
  }

  // Depth: nest folders until refused.
  char deep[4096] = "/input/d";
  int depth = 0;
  for (;;) {
    errno = 0;
    if (mkdir(deep, 0755) != 0) break;
    ++depth;
    strcat(deep, "/d");
  }
  printf("nested %d folders, then %s\n", depth, errno_name(errno));
  return 0;
}
