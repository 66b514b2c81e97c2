// Workload: zlib deflate (level 6) and inflate of generated text, round trip
// checked. Prints the compressed size and a checksum of the output.
#include <string.h>
#include <zlib.h>

#include "common.h"

int main(int argc, char** argv) {
  const size_t size = (size_t)4 << 20;  // 4 MiB per round
  const unsigned rounds = 2 * bench_scale(argc, argv);
  unsigned char* input = bench_xmalloc(size);
  unsigned char* restored = bench_xmalloc(size);
  uLong bound = compressBound(size);
  unsigned char* packed = bench_xmalloc(bound);
  uint64_t sum = bench_fnv1a_init();
  unsigned long total_packed = 0;
  for (unsigned round = 0; round < rounds; ++round) {
    bench_fill_text(input, size, 0x5eed0000u + round);
    uLongf packed_len = bound;
    if (compress2(packed, &packed_len, input, size, 6) != Z_OK) {
      fprintf(stderr, "compress2 failed\n");
      return 1;
    }
    uLongf restored_len = size;
    if (uncompress(restored, &restored_len, packed, packed_len) != Z_OK || restored_len != size ||
        memcmp(input, restored, size) != 0) {
      fprintf(stderr, "round trip mismatch\n");
      return 1;
    }
    total_packed += packed_len;
    sum = bench_fnv1a(packed, packed_len, sum);
  }
  printf("zlib: %u rounds, %lu compressed bytes, checksum %016llx\n", rounds, total_packed,
         (unsigned long long)sum);
  return 0;
}
