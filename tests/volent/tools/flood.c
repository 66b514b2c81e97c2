// A hostile tool (tests/volent/tool_limits_test.py): writes to
// /output/flood.bin, a MiB at a time, until the filesystem refuses or it has
// written the megabytes its arguments name ({"mb": N}); its result is how
// much it wrote and what stopped it.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char chunk[1 << 20];

int main(void) {
  char args[256] = {0};
  size_t n = fread(args, 1, sizeof args - 1, stdin);
  args[n] = '\0';
  const char* mb = strstr(args, "\"mb\":");
  long long limit = mb ? atoll(mb + 5) << 20 : 0;
  memset(chunk, 'x', sizeof chunk);
  FILE* f = fopen("/output/flood.bin", "wb");
  if (f) setvbuf(f, NULL, _IONBF, 0);  // each chunk one write: the cap refuses it whole
  long long written = 0;
  const char* error = f ? "" : strerror(errno);
  while (f && written < limit) {
    if (fwrite(chunk, 1, sizeof chunk, f) != sizeof chunk || fflush(f) != 0) {
      error = strerror(errno);
      break;
    }
    written += sizeof chunk;
  }
  if (f) fclose(f);
  printf("{\"written\": %lld, \"error\": \"%s\"}\n", written, error);
  return 0;
}
