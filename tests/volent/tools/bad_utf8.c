// A tool that fails with bytes that are not UTF-8 on stderr: its failure must
// still be journaled, with the bytes replaced (tests/volent/sealed_tools_test.py).
#include <stdio.h>

int main(void) {
  fputs("bad_utf8: \xff\xfe\xc3 refused\n", stderr);
  return 3;
}
