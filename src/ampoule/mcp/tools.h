// The tools of `ampoule mcp` (docs/mcp.md): run_python, run_javascript,
// run_wasm, verify_receipt, gate_submit.
//
// Each run is its own sealed jailed process (run::RunProgram); files a call
// needs on disk go to a private temporary folder removed when it returns.
//
// Thread-safe: the context is read-only once built.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ampoule/mcp/tool.h"
#include "core/ed25519.h"

namespace ampoule::mcp {

struct ToolContext {
  std::string kernel_path;                // resolved, existing
  core::ed25519::SecretKey key;                 // signs run receipts
  std::vector<std::string> trusted_keys;  // trusted-keys files for verify_receipt
  std::string own_public_key;             // the key's .pub text, trusted when trusted_keys is empty
  std::string gate_policy;                // empty: gate_submit is not configured
};

// The most a run's stdout and stderr each keep (the rest is counted, not
// kept): results travel in one JSON-RPC message.
inline constexpr uint64_t kToolOutputCapBytes = uint64_t(4) << 20;

std::vector<Tool> RunTools(std::shared_ptr<const ToolContext> context);      // tools_run.cc
Tool VerifyReceiptTool(std::shared_ptr<const ToolContext> context);          // tools_verify.cc
Tool GateSubmitTool(std::shared_ptr<const ToolContext> context);             // tools_gate.cc

// Every tool, in the order tools/list shows them.
std::vector<Tool> AllTools(std::shared_ptr<const ToolContext> context);

// Shared by the tools (tools_common.cc).
// The schema of {name: text} maps (inputs).
nlohmann::json FileMapSchema(const char* description);
// Decodes the `inputs` (text) and `inputs_base64` maps of `arguments` into
// name -> bytes; an error names a bad name or bad base64, or a name given
// twice.
struct NamedBytes {
  std::string name;
  std::string bytes;
};
core::Result<std::vector<NamedBytes>> ReadInputs(const nlohmann::json& arguments);
}  // namespace ampoule::mcp
