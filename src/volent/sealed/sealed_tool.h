// Running a sealed tool call (kind wasm, python or js; docs/tools.md): the
// module or program comes from
// the node's tool store (signature and digest checked again at every load),
// runs through `ampoule run`'s own path (run::RunProgram: the kernel's
// engine, a fresh jail, the manifest's fuel, memory and time limits), and
// the call's result carries an Ampoule receipt signed with the node's key.
//
// The tool's interface (docs/tools.md, wit/volent-tool.wit): a WASI preview
// 1 command module, or a Python or JavaScript program run by the kernel's
// runtimes; its arguments arrive on stdin as one JSON object; it writes its
// result, one JSON value, to stdout and exits 0. Any other end
// (an exit status, a trap, fuel, memory or time running out, output that
// is not JSON) is a failed call the model is told about, never a node
// failure. The module has no network, no clock but the virtual one and no
// files but an empty, private /tmp.
//
// Thread-safe. Calls run on the runner's own worker threads (RunProgram
// blocks for the whole run); the destructor waits for the calls started.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampoule/receipt/ed25519.h"
#include "volent/agent/tool_call.h"

namespace volent::sealed {

// Limits for a tool whose manifest leaves one out.
inline constexpr uint64_t kDefaultToolFuel = 1'000'000'000;
inline constexpr int kDefaultToolMemoryMb = 64;
inline constexpr int kDefaultToolTimeMs = 10'000;
// The most a tool may write to stdout (its result) and to stderr.
inline constexpr uint64_t kToolOutputCap = 1 << 20;

struct SealedToolOptions {
  std::string data_dir;                                // holds the tool store (DATA_DIR/tools)
  std::vector<ampoule::receipt::PublicKey> trusted;    // the node's tool keys
  std::string kernel_path;                             // the Ampoule kernel the calls run on
  std::shared_ptr<const ampoule::receipt::SecretKey> receipt_key;  // signs each call's receipt
  unsigned workers = 0;                                // 0: one per hardware thread
};

class SealedToolRunner {
 public:
  explicit SealedToolRunner(SealedToolOptions options);
  ~SealedToolRunner();
  SealedToolRunner(const SealedToolRunner&) = delete;
  SealedToolRunner& operator=(const SealedToolRunner&) = delete;

  // An agent::ToolPerformer for sealed tools: queues the call and returns;
  // `done` gets Run's result on a worker thread.
  void Perform(const agent::ToolDef& tool, const nlohmann::json& request, agent::StepDone done);

  // One call, start to end, on the calling thread. The result:
  //   {"type":"tool","tool":NAME,"outcome":"answered","result":VALUE,
  //    "stdin":TEXT,"stop":"exit","fuel_used":N,"receipt":ENVELOPE}
  //   {"type":"tool","tool":NAME,"outcome":"failed","reason":WHY, ...}
  // where "stdin" is the exact bytes the tool read (its arguments) and
  // "receipt" the signed Ampoule receipt of the run (absent only when the
  // tool could not be run at all: not in the store, no kernel).
  nlohmann::json Run(const agent::ToolDef& tool, const nlohmann::json& request) const;

 private:
  void Work();

  SealedToolOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace volent::sealed
