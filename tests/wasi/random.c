// Prints 32 bytes from getentropy (random_get) in hex. The formatting takes
// the same path whatever the bytes are, so fuel does not depend on them.
#include <stdio.h>
#include <unistd.h>

int main(void) {
  unsigned char bytes[32];
  if (getentropy(bytes, sizeof bytes) != 0) {
    puts("getentropy failed");
    return 1;
  }
  static const char kHex[] = "0123456789abcdef";
  char out[2 * sizeof bytes + 1];
  for (unsigned i = 0; i < sizeof bytes; ++i) {
    out[2 * i] = kHex[bytes[i] >> 4];
    out[2 * i + 1] = kHex[bytes[i] & 15];
  }
  out[2 * sizeof bytes] = 0;
  printf("random: %s\n", out);
  puts("done");
  return 0;
}
