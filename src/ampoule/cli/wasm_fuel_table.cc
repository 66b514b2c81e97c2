// ampoule wasm fuel-table: prints the cost table as Markdown (docs/fuel.md).
#include <cstdio>

#include "ampoule/cli/commands.h"
#include "ampoule/wasm/fuel.h"

namespace ampoule::cli {

int WasmFuelTableCommand(Args args) {
  if (!args.empty()) {
    fputs("usage: ampoule wasm fuel-table\n  prints the fuel cost table as Markdown\n", stderr);
    return 2;
  }
  fputs(wasm::FuelTableMarkdown().c_str(), stdout);
  return 0;
}

}  // namespace ampoule::cli
