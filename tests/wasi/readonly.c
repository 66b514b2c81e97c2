// Every way of changing a read-only preopen fails with an errno; reading
// still works.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_errno.h"

int main(void) {
  TRY("create file", open("/input/new.txt", O_WRONLY | O_CREAT, 0644) >= 0);
  TRY("open for writing", open("/input/hello.txt", O_WRONLY) >= 0);
  TRY("open for append", fopen("/input/hello.txt", "a") != NULL);
  TRY("truncate on open", open("/input/hello.txt", O_RDONLY | O_TRUNC) >= 0);
  TRY("mkdir", mkdir("/input/newdir", 0755) == 0);
  TRY("mkdir existing", mkdir("/input/nested", 0755) == 0);
  TRY("unlink", unlink("/input/hello.txt") == 0);
  TRY("rmdir", rmdir("/input/nested/deep") == 0);
  TRY("rename", rename("/input/hello.txt", "/input/moved.txt") == 0);
  TRY("symlink", symlink("hello.txt", "/input/link") == 0);
  TRY("escape with ..", open("/input/../etc/passwd", O_RDONLY) >= 0);
  int fd = open("/input/hello.txt", O_RDONLY);
  TRY("read-only open", fd >= 0);
  TRY("write to read-only fd", write(fd, "x", 1) == 1);
  TRY("ftruncate", ftruncate(fd, 0) == 0);
  char c;
  TRY("read still works", read(fd, &c, 1) == 1);
  return 0;
}
