// A small CPU-bound guest for the demo: reads a limit from argv, prints the
// number below it with the longest Collatz chain, and a few random bytes to
// show that randomness comes from the run's seed.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long limit = argc > 1 ? atol(argv[1]) : 100000;
  long best = 1, best_len = 1;
  for (long n = 1; n < limit; ++n) {
    long len = 1;
    for (unsigned long long x = n; x != 1; x = (x & 1) ? 3 * x + 1 : x / 2) ++len;
    if (len > best_len) best = n, best_len = len;
  }
  printf("longest chain below %ld starts at %ld (%ld steps)\n", limit, best, best_len);

  unsigned char r[8];
  getentropy(r, sizeof r);
  printf("random bytes from the seed:");
  for (int i = 0; i < 8; ++i) printf(" %02x", r[i]);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  printf("\nvirtual monotonic clock: %lld.%09ld s\n", (long long)ts.tv_sec, ts.tv_nsec);
  return 0;
}
