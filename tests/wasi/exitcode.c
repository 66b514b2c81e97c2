// Exits with the status given as argv[1] (via exit()), writing to stderr
// first; with no argument returns 0 from main.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc < 2) return 0;
  fprintf(stderr, "exiting with %s\n", argv[1]);
  exit(atoi(argv[1]));
}
