// Reads the clocks, sleeps, and prints what it saw. Every value is virtual:
// derived from fuel used and time slept, never from the host.
#include <stdio.h>
#include <time.h>

static long long ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void) {
  long long m0 = ns(CLOCK_MONOTONIC);
  long long m1 = ns(CLOCK_MONOTONIC);
  struct timespec req = {0, 5000000};  // 5 ms
  nanosleep(&req, NULL);
  long long m2 = ns(CLOCK_MONOTONIC);
  long long r = ns(CLOCK_REALTIME);
  struct timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  printf("monotonic non-decreasing: %d\n", m0 <= m1 && m1 <= m2);
  printf("sleep advanced at least 5ms: %d\n", m2 - m1 >= 5000000);
  printf("realtime seconds: %lld\n", r / 1000000000LL);
  printf("resolution ns: %ld\n", res.tv_nsec);
  printf("time(): %lld\n", (long long)time(NULL));
  return 0;
}
