// Lists /input and /input/nested with readdir (in the order the host
// gives), marking directories with a trailing '/'.
#include <dirent.h>
#include <stdio.h>
#include <string.h>

static int list(const char* path) {
  DIR* d = opendir(path);
  if (!d) {
    printf("cannot open %s\n", path);
    return 1;
  }
  printf("%s:\n", path);
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    printf("  %s%s\n", e->d_name, e->d_type == DT_DIR ? "/" : "");
  }
  closedir(d);
  return 0;
}

int main(void) { return list("/input") | list("/input/nested"); }
