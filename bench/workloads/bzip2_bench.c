// Workload: bzip2 compression (block size 9) and decompression of generated
// text, round trip checked.
#include <bzlib.h>
#include <string.h>

#include "common.h"

int main(int argc, char** argv) {
  const unsigned size = 2u << 20;  // 2 MiB per round
  const unsigned rounds = bench_scale(argc, argv);
  unsigned char* input = bench_xmalloc(size);
  unsigned char* restored = bench_xmalloc(size);
  unsigned bound = size + size / 100 + 600;  // bzip2's documented worst case
  unsigned char* packed = bench_xmalloc(bound);
  uint64_t sum = bench_fnv1a_init();
  unsigned long total_packed = 0;
  for (unsigned round = 0; round < rounds; ++round) {
    bench_fill_text(input, size, 0xb21b0000u + round);
    unsigned packed_len = bound;
    if (BZ2_bzBuffToBuffCompress((char*)packed, &packed_len, (char*)input, size, 9, 0, 0) != BZ_OK) {
      fprintf(stderr, "compress failed\n");
      return 1;
    }
    unsigned restored_len = size;
    if (BZ2_bzBuffToBuffDecompress((char*)restored, &restored_len, (char*)packed, packed_len, 0, 0) !=
            BZ_OK ||
        restored_len != size || memcmp(input, restored, size) != 0) {
      fprintf(stderr, "round trip mismatch\n");
      return 1;
    }
    total_packed += packed_len;
    sum = bench_fnv1a(packed, packed_len, sum);
  }
  printf("bzip2: %u rounds, %lu compressed bytes, checksum %016llx\n", rounds, total_packed,
         (unsigned long long)sum);
  return 0;
}
