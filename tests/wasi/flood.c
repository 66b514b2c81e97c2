// Writes argv[1] KiB of output (default 1024) and then "end".
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int kib = argc > 1 ? atoi(argv[1]) : 1024;
  char block[1024];
  memset(block, 'x', sizeof block);
  for (int i = 0; i < kib; ++i) fwrite(block, 1, sizeof block, stdout);
  puts("end");
  return 0;
}
