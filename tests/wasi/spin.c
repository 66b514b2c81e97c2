// Runs forever (until the fuel budget stops it).
int main(void) {
  volatile unsigned long long n = 0;
  for (;;) ++n;
}
