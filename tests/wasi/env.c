// Prints the environment in order, then looks one variable up.
#include <stdio.h>
#include <stdlib.h>

extern char** environ;

int main(void) {
  for (char** e = environ; *e != NULL; ++e) printf("env %s\n", *e);
  const char* v = getenv("GREETING");
  printf("GREETING=%s\n", v ? v : "(unset)");
  return 0;
}
