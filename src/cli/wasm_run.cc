#include <cstdio>

#include "cli/commands.h"

namespace ampoule::cli {
int WasmRunCommand(Args) {
  fputs("ampoule wasm run: not built yet\n", stderr);
  return 2;
}
}  // namespace ampoule::cli
