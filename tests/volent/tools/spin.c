// A tool that never answers: it must end on its fuel or time limit, as a
// failed call (tests/volent/sealed_tools_test.py).
int main(void) {
  volatile unsigned long n = 0;
  for (;;) n++;
}
