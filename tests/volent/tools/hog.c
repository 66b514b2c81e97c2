// A tool that takes memory until it cannot: it must end on its memory limit,
// as a failed call (tests/volent/sealed_tools_test.py).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Every block stays reachable, so the compiler cannot drop the allocations.
char* volatile blocks[4096];

int main(void) {
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; ++i) {
    blocks[i] = malloc(1 << 20);
    if (!blocks[i]) {
      fprintf(stderr, "hog: out of memory after %zu MiB\n", i);
      abort();
    }
    memset(blocks[i], 1, 1 << 20);
  }
  puts("{\"hog\": \"never ran out\"}");
  return 0;
}
