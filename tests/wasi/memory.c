// Allocates 1 MiB blocks until malloc fails, then reports how many it got.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char* volatile blocks[4096];  // volatile: the allocations must really happen

int main(void) {
  int n = 0;
  for (; n < 4096; ++n) {
    char* p = malloc(1 << 20);
    if (!p) break;
    memset(p, 1, 1 << 20);
    blocks[n] = p;
  }
  printf("allocated %d MiB before malloc failed\n", n);
  return 0;
}
