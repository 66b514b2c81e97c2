// ampoule-wasm-run: `ampoule wasm run` alone, linked with the engine and the
// WASI host only. The determinism check (tests/determinism.sh) compares it
// built at -O2 and at -O0; a binary this small builds at -O0 in a fraction
// of the time the whole `ampoule` command takes. Not installed.
#include "ampoule/cli/commands.h"

int main(int argc, char** argv) {
  return ampoule::cli::WasmRunCommand(ampoule::cli::Args(argv + 1, argc - 1));
}
