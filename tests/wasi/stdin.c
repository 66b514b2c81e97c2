// Copies stdin to stdout in upper case, then prints byte and line counts.
#include <ctype.h>
#include <stdio.h>

int main(void) {
  int c;
  long bytes = 0, lines = 0;
  while ((c = getchar()) != EOF) {
    ++bytes;
    if (c == '\n') ++lines;
    putchar(toupper(c));
  }
  printf("bytes=%ld lines=%ld\n", bytes, lines);
  return 0;
}
