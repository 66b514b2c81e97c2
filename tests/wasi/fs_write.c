// Changes files under /input the way ordinary programs do: create, write,
// append, truncate, pwrite past the end, seek, rename over files and
// directories, hard and symbolic links, unlink while open, mkdir and rmdir,
// and the errors POSIX gives for each misuse. Prints only what any POSIX
// system prints alike (no inode numbers, times, or host directory order), so
// the output is compared with Node's WASI on a real directory.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_errno.h"

// Prints a file's bytes, escaping what is not printable.
static void show(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    printf("  %s: %s\n", path, errno_name(errno));
    return;
  }
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  printf("  %s (%zd): ", path, n);
  for (ssize_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)buf[i];
    if (c >= 32 && c < 127) putchar(c); else printf("\\x%02x", c);
  }
  putchar('\n');
}

static int by_name(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

// Lists a tree, sorted, with kinds and file sizes.
static void tree(const char* path, int depth) {
  DIR* d = opendir(path);
  if (!d) {
    printf("%*s%s: %s\n", depth * 2, "", path, errno_name(errno));
    return;
  }
  char* names[64];
  int count = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL && count < 64) {
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[count++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, count, sizeof names[0], by_name);
  for (int i = 0; i < count; ++i) {
    char child[512];
    snprintf(child, sizeof child, "%s/%s", path, names[i]);
    struct stat st;
    lstat(child, &st);
    if (S_ISDIR(st.st_mode)) {
      printf("%*s%s/\n", depth * 2, "", names[i]);
      tree(child, depth + 1);
    } else if (S_ISLNK(st.st_mode)) {
      char target[256] = {0};
      readlink(child, target, sizeof target - 1);
      printf("%*s%s -> %s\n", depth * 2, "", names[i], target);
    } else {
      printf("%*s%s %lld\n", depth * 2, "", names[i], (long long)st.st_size);
    }
    free(names[i]);
  }
}

int main(void) {
  // Create, write, append, truncate.
  int fd = open("/input/new.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  TRY("create", fd >= 0);
  TRY("write", write(fd, "hello\n", 6) == 6);
  close(fd);
  TRY("create again, exclusive", open("/input/new.txt", O_WRONLY | O_CREAT | O_EXCL, 0644) >= 0);
  FILE* f = fopen("/input/new.txt", "a");
  TRY("fopen append", f != NULL);
  fputs("more\n", f);
  fclose(f);
  show("/input/new.txt");
  fd = open("/input/hello.txt", O_WRONLY | O_TRUNC);
  TRY("truncate on open", fd >= 0);
  TRY("write after truncate", write(fd, "replaced\n", 9) == 9);
  close(fd);
  show("/input/hello.txt");

  // Positions: pwrite past the end leaves zeros; ftruncate both ways.
  fd = open("/input/sparse.bin", O_RDWR | O_CREAT, 0644);
  TRY("pwrite past the end", pwrite(fd, "XY", 2, 5) == 2);
  printf("position after pwrite: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  printf("seek to end: %lld\n", (long long)lseek(fd, 0, SEEK_END));
  TRY("write at end", write(fd, "Z", 1) == 1);
  TRY("ftruncate down", ftruncate(fd, 6) == 0);
  TRY("ftruncate up", ftruncate(fd, 9) == 0);
  struct stat st;
  fstat(fd, &st);
  printf("size: %lld\n", (long long)st.st_size);
  close(fd);
  show("/input/sparse.bin");
  fd = open("/input/hello.txt", O_RDONLY);
  TRY("write to a read-only descriptor", write(fd, "x", 1) == 1);
  close(fd);

  // Directories.
  TRY("mkdir", mkdir("/input/dir", 0755) == 0);
  TRY("mkdir existing", mkdir("/input/dir", 0755) == 0);
  TRY("mkdir under a file", mkdir("/input/new.txt/sub", 0755) == 0);
  TRY("mkdir under a missing folder", mkdir("/input/missing/sub", 0755) == 0);
  TRY("mkdir empty", mkdir("/input/empty", 0755) == 0);
  fd = open("/input/dir/a.txt", O_WRONLY | O_CREAT, 0644);
  write(fd, "a", 1);
  close(fd);
  TRY("rmdir non-empty", rmdir("/input/dir") == 0);
  TRY("rmdir a file", rmdir("/input/new.txt") == 0);
  TRY("unlink a directory", unlink("/input/dir") == 0);
  TRY("open a directory for writing", open("/input/dir", O_WRONLY) >= 0);

  // Renames.
  TRY("rename file", rename("/input/dir/a.txt", "/input/dir/b.txt") == 0);
  TRY("rename over a file", rename("/input/dir/b.txt", "/input/new.txt") == 0);
  TRY("rename a missing file", rename("/input/dir/b.txt", "/input/x") == 0);
  TRY("rename a file over a directory", rename("/input/new.txt", "/input/empty") == 0);
  TRY("rename a directory over a file", rename("/input/empty", "/input/new.txt") == 0);
  TRY("rename a directory into itself", rename("/input/nested", "/input/nested/deep/x") == 0);
  TRY("rename a directory over a non-empty one", rename("/input/empty", "/input/nested") == 0);
  TRY("rename a directory over an empty one", rename("/input/dir", "/input/empty") == 0);
  TRY("rename a directory", rename("/input/nested", "/input/moved") == 0);
  show("/input/moved/z.txt");

  // Links.
  TRY("hard link", link("/input/new.txt", "/input/twin.txt") == 0);
  stat("/input/twin.txt", &st);
  printf("links: %lld\n", (long long)st.st_nlink);
  fd = open("/input/twin.txt", O_WRONLY | O_APPEND);
  write(fd, "via twin\n", 9);
  close(fd);
  show("/input/new.txt");
  TRY("hard link to a directory", link("/input/moved", "/input/dirlink") == 0);
  TRY("hard link over a file", link("/input/new.txt", "/input/hello.txt") == 0);
  TRY("symlink", symlink("moved/z.txt", "/input/link") == 0);
  TRY("symlink over a file", symlink("x", "/input/hello.txt") == 0);
  show("/input/link");
  char target[64] = {0};
  TRY("readlink", readlink("/input/link", target, sizeof target - 1) > 0);
  printf("target: %s\n", target);
  TRY("readlink a file", readlink("/input/new.txt", target, sizeof target) > 0);
  lstat("/input/link", &st);
  printf("lstat is a link: %d\n", S_ISLNK(st.st_mode) ? 1 : 0);
  stat("/input/link", &st);
  printf("stat is a file: %d\n", S_ISREG(st.st_mode) ? 1 : 0);
  TRY("symlink to a folder", symlink("moved", "/input/folder") == 0);
  show("/input/folder/deep/data.bin");
  TRY("dangling symlink", symlink("nowhere", "/input/dangling") == 0);
  TRY("open a dangling symlink", open("/input/dangling", O_RDONLY) >= 0);
  TRY("symlink loop", symlink("loop", "/input/loop") == 0);
  TRY("open a loop", open("/input/loop", O_RDONLY) >= 0);
  TRY("unlink a symlink", unlink("/input/dangling") == 0);

  // Unlink while open: the open file stays readable.
  fd = open("/input/twin.txt", O_RDONLY);
  TRY("unlink while open", unlink("/input/twin.txt") == 0);
  char buf[32] = {0};
  printf("still readable: %zd\n", read(fd, buf, 5));
  close(fd);
  TRY("stat after unlink", stat("/input/twin.txt", &st) == 0);
  TRY("unlink a missing file", unlink("/input/twin.txt") == 0);

  printf("tree:\n");
  tree("/input", 1);
  return 0;
}
