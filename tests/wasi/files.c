// Reads files from the preopened /input directory: whole, in parts, with
// seeks and stat; reports a missing file.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  FILE* f = fopen("/input/hello.txt", "r");
  if (!f) {
    printf("open failed: errno %d\n", errno);
    return 1;
  }
  char line[128];
  while (fgets(line, sizeof line, f)) printf("line: %s", line);
  fclose(f);

  int fd = open("/input/nested/deep/data.bin", O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    printf("nested open failed: errno %d\n", errno);
    return 1;
  }
  printf("data.bin size=%lld regular=%d\n", (long long)st.st_size, S_ISREG(st.st_mode) ? 1 : 0);
  char buf[4];
  lseek(fd, -4, SEEK_END);
  ssize_t n = read(fd, buf, sizeof buf);
  printf("last %zd bytes: %.4s\n", n, buf);
  n = pread(fd, buf, 3, 0);
  printf("first %zd bytes: %.3s\n", n, buf);
  printf("position after pread: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  close(fd);

  if (stat("/input/nested", &st) == 0)
    printf("nested is a directory: %d\n", S_ISDIR(st.st_mode) ? 1 : 0);
  errno = 0;
  FILE* missing = fopen("/input/missing.txt", "r");
  printf("missing: %s errno=%s\n", missing ? "opened" : "not opened",
         errno == ENOENT ? "ENOENT" : "other");
  return 0;
}
