#include <cstdio>

#include "cli/commands.h"

namespace ampoule::cli {
int WasmSpectestCommand(Args) {
  fputs("ampoule wasm spectest: not built yet\n", stderr);
  return 2;
}
}  // namespace ampoule::cli
