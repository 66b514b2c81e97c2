// Prints a line, then traps (unreachable).
#include <stdio.h>

int main(void) {
  puts("about to trap");
  fflush(stdout);
  __builtin_trap();
}
