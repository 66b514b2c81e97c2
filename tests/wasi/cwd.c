// Where a program stands: it starts in "/", which must take new files as a
// POSIX working directory does, and every refusal is an errno a POSIX
// program knows (never WASI's ENOTCAPABLE). argv[1], if given, is a
// read-only directory to try writing into.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_errno.h"

// The whole file at `path`, or the errno's name.
static const char* slurp(const char* path) {
  static char buf[64];
  FILE* f = fopen(path, "r");
  if (f == NULL) return errno_name(errno);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int put(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (f == NULL) return 0;
  int ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

int main(int argc, char** argv) {
  char cwd[256];
  printf("cwd: %s\n", getcwd(cwd, sizeof cwd) != NULL ? cwd : errno_name(errno));
  TRY("write out.txt", put("out.txt", "written here"));
  printf("read out.txt: %s\n", slurp("out.txt"));
  printf("read /out.txt: %s\n", slurp("/out.txt"));
  TRY("mkdir work", mkdir("work", 0755) == 0);
  TRY("write work/a.txt", put("work/a.txt", "a"));
  TRY("rename work/a.txt to b.txt", rename("work/a.txt", "b.txt") == 0);
  printf("read ./b.txt: %s\n", slurp("./b.txt"));
  TRY("hard link", link("b.txt", "work/c.txt") == 0);
  TRY("symbolic link", symlink("b.txt", "to_b") == 0);
  printf("read to_b: %s\n", slurp("to_b"));
  TRY("symbolic link to an absolute path", symlink("/b.txt", "abs") == 0);
  TRY("write /tmp/t.txt", put("/tmp/t.txt", "t"));
  TRY("chdir /tmp", chdir("/tmp") == 0);
  printf("cwd: %s\n", getcwd(cwd, sizeof cwd) != NULL ? cwd : errno_name(errno));
  printf("read t.txt: %s\n", slurp("t.txt"));
  TRY("escape with ..", open("../out.txt", O_RDONLY) >= 0);
  TRY("read a missing file", open("/nowhere.txt", O_RDONLY) >= 0);
  if (argc > 1) {
    char path[256];
    snprintf(path, sizeof path, "%s/new.txt", argv[1]);
    TRY("write into the read-only directory", put(path, "x"));
    snprintf(path, sizeof path, "%s/newdir", argv[1]);
    TRY("mkdir in the read-only directory", mkdir(path, 0755) == 0);
  }
  return 0;
}
