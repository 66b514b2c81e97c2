// ampoule-engine: the engine a kernel carries. The logic lives in src/run.
#include <cstdio>
int main() {
  fputs("ampoule-engine: not built yet\n", stderr);
  return 125;
}
