// Shared by the benchmark workloads: deterministic input data and checksums.
//
// Every workload builds its input from a fixed seed, so the native build,
// our engine and Node all process the same bytes and must print the same
// result line; the driver compares those lines before it trusts a timing.
#ifndef AMPOULE_BENCH_COMMON_H_
#define AMPOULE_BENCH_COMMON_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// xorshift64*: small, fast, identical everywhere.
static inline uint64_t bench_next(uint64_t* state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

// Fills buf with text-like data (words from a small vocabulary, numbers and
// punctuation) that compresses about as well as ordinary prose or logs.
static inline void bench_fill_text(unsigned char* buf, size_t size, uint64_t seed) {
  static const char* const kWords[] = {
      "the", "order", "refund", "amount", "customer", "invoice", "total", "shipping",
      "status", "pending", "approved", "error", "value", "record", "account", "line",
      "of", "and", "to", "in", "for", "with", "on", "at", "by", "from", "as", "is",
      "compute", "receipt", "verify", "module", "memory", "table", "function", "export"};
  const size_t nwords = sizeof(kWords) / sizeof(kWords[0]);
  uint64_t state = seed | 1;
  size_t pos = 0;
  while (pos < size) {
    uint64_t r = bench_next(&state);
    char tmp[32];
    int n;
    if ((r & 7) == 0) {
      n = snprintf(tmp, sizeof tmp, "%u.%02u", (unsigned)(r >> 8) % 10000, (unsigned)(r >> 24) % 100);
    } else {
      n = snprintf(tmp, sizeof tmp, "%s", kWords[(r >> 8) % nwords]);
    }
    tmp[n++] = ((r >> 40) & 15) == 0 ? '\n' : (((r >> 44) & 15) == 0 ? ',' : ' ');
    for (int i = 0; i < n && pos < size; ++i) buf[pos++] = (unsigned char)tmp[i];
  }
}

// FNV-1a, to print one number that stands for a whole buffer.
static inline uint64_t bench_fnv1a(const unsigned char* p, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ULL;
  return h;
}
static inline uint64_t bench_fnv1a_init(void) { return 0xCBF29CE484222325ULL; }

static inline void* bench_xmalloc(size_t n) {
  void* p = malloc(n);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

// Reads the scale factor from argv[1] (default 1): work grows linearly.
static inline unsigned bench_scale(int argc, char** argv) {
  if (argc < 2) return 1;
  unsigned long v = strtoul(argv[1], NULL, 10);
  return v == 0 ? 1 : (unsigned)v;
}

#endif  // AMPOULE_BENCH_COMMON_H_
