// A reactor in the shape of the guest runtimes (python.wasm, js.wasm): no
// _start; ampoule_init builds state once, ampoule_main uses it. Built with
// -mexec-model=reactor (see CMakeLists.txt), so wasi-libc exports
// _initialize, which runs the constructors.
//
// ampoule_init keeps state in globals and on the heap, including a big
// allocation that is mostly zero (REACTOR_HEAP_MB MiB, default 1, with one
// marked byte every 256 KiB), sleeps 1 ms and reads the clock. It returns
// REACTOR_INIT_STATUS if set, and keeps /input open if REACTOR_KEEP_FD is
// set (a state a snapshot must refuse).
//
// ampoule_main prints that state, the arguments, the clock and 8 random
// bytes, then changes the state (a later run from the same snapshot must not
// see the change). argv[1] "exit N" returns N; "proc_exit N" calls exit(N);
// "trap" traps.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

#define EXPORT(name) __attribute__((export_name(name)))

static int counter;
static char* greeting;
static unsigned char* heap_block;
static size_t heap_bytes;
static long long init_monotonic;
static int (*op)(int);  // reached through the function table

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }

static long long now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

EXPORT("ampoule_init") int ampoule_init(void) {
  const char* mb = getenv("REACTOR_HEAP_MB");
  heap_bytes = (size_t)(mb ? atoi(mb) : 1) << 20;
  heap_block = calloc(1, heap_bytes);
  if (heap_block == NULL) return 9;
  for (size_t i = 0; i < heap_bytes; i += 256 * 1024) heap_block[i] = (unsigned char)(i >> 18) | 1;
  greeting = strdup("hello from init");
  counter = 41;
  op = getenv("REACTOR_THRICE") ? thrice : twice;
  struct timespec req = {0, 1000000};
  nanosleep(&req, NULL);
  init_monotonic = now(CLOCK_MONOTONIC);
  if (getenv("REACTOR_KEEP_FD")) open("/input", O_RDONLY | O_DIRECTORY);
  const char* status = getenv("REACTOR_INIT_STATUS");
  return status ? atoi(status) : 0;
}

// argv through the raw WASI calls: a reactor has no main(argc, argv).
static char** get_args(int* argc) {
  size_t n = 0, bytes = 0;
  if (__wasi_args_sizes_get(&n, &bytes) != 0) abort();
  char** argv = calloc(n + 1, sizeof *argv);
  char* buf = malloc(bytes + 1);
  if (__wasi_args_get((uint8_t**)argv, (uint8_t*)buf) != 0) abort();
  *argc = (int)n;
  return argv;
}

EXPORT("ampoule_main") int ampoule_main(void) {
  int argc = 0;
  char** argv = get_args(&argc);
  counter++;
  unsigned long sum = 0;
  for (size_t i = 0; i < heap_bytes; i += 4096) sum += heap_block[i];
  printf("counter=%d greeting=%s op(7)=%d heap=%zu sum=%lu\n", counter, greeting, op(7),
         heap_bytes, sum);
  for (int i = 0; i < argc; ++i) printf("argv[%d]=%s\n", i, argv[i]);
  long long m = now(CLOCK_MONOTONIC);
  printf("init monotonic=%lld main monotonic after init=%d\n", init_monotonic, m > init_monotonic);
  printf("main monotonic=%lld cputime=%lld\n", m, now(CLOCK_PROCESS_CPUTIME_ID));
  unsigned char r[8];
  getentropy(r, sizeof r);
  // Formatted the same way whatever the bytes are, so fuel does not depend
  // on them.
  static const char kHex[] = "0123456789abcdef";
  char hex[2 * sizeof r + 1];
  for (unsigned i = 0; i < sizeof r; ++i) {
    hex[2 * i] = kHex[r[i] >> 4];
    hex[2 * i + 1] = kHex[r[i] & 15];
  }
  hex[2 * sizeof r] = 0;
  printf("random=%s\n", hex);
  // Changes a later run must not see.
  strcpy(greeting, "changed by main");
  memset(heap_block, 0xab, heap_bytes);
  op = thrice;
  fflush(stdout);
  if (argc >= 3 && strcmp(argv[1], "exit") == 0) return atoi(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "proc_exit") == 0) exit(atoi(argv[2]));
  if (argc >= 2 && strcmp(argv[1], "trap") == 0) __builtin_trap();
  return 0;
}
