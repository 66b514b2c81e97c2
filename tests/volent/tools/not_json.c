// A tool whose answer is not JSON: a failed call that says so
// (tests/volent/sealed_tools_test.py).
#include <stdio.h>

int main(void) {
  puts("refund: yes");
  return 0;
}
