// ampoule-verify: checks a receipt (SPEC A6). The logic lives in src/verify.
#include <cstdio>
int main() {
  fputs("ampoule-verify: not built yet\n", stderr);
  return 2;
}
