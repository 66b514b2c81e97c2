// The `ampoule` subcommands. Each takes the arguments after its own name and
// returns the process exit code. Front ends only: they parse, call a library,
// print.
#pragma once

#include <span>
#include <string_view>

namespace ampoule::cli {

using Args = std::span<const char* const>;

int RunCommand(Args args);            // ampoule run            (run.cc)
int WasmRunCommand(Args args);        // ampoule wasm run       (wasm_run.cc)
int WasmSpectestCommand(Args args);   // ampoule wasm spectest  (wasm_spectest.cc)
int WasmFuelTableCommand(Args args);  // ampoule wasm fuel-table (wasm_fuel_table.cc)
int KeygenCommand(Args args);         // ampoule keygen         (keygen.cc)
int VerifyCommand(Args args);         // ampoule verify         (verify.cc)
int KernelCommand(Args args);         // ampoule kernel ...     (kernel.cc)
int GateSubmitCommand(Args args);     // ampoule gate submit    (gate.cc)
int GateLogCommand(Args args);        // ampoule gate log       (gate.cc)
int DemoRefundCommand(Args args);     // ampoule demo refund    (demo.cc)
int DemoGraderCommand(Args args);     // ampoule demo grader    (demo.cc)
int McpCommand(Args args);            // ampoule mcp            (mcp.cc)

}  // namespace ampoule::cli
