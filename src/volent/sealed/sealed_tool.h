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
// failure. The module has no clock but the virtual one, no files but an
// empty, private /tmp, and no network but its capability import: HTTP
// requests through the egress gate under the tool's capability.
//
// A request is answered by running the call again: the run stops at a
// request it has no answer for (ampoule/wasi/http_capability.h), the
// runner sends it through the gate (tool_http.h), records the exchange and
// runs the call from the start with every answer so far recorded, in the
// input ampoule::wasi::kHttpExchangesInput. The last run, which the
// receipt signs, names those answers as an input, so a replay gives the
// tool the same answers (docs/decisions/0037-tool-http-capability.md).
// The manifest's time limit covers the whole call, requests included.
//
// What a call may hold (docs/tools.md, "What a call costs the node"): the
// guest's memory (memory_mb) and its files (files_mb, by default memory_mb:
// every file it sees, its runtime's library and its inputs included) live
// in the jailed engine, never in the node; the node hashes the files the
// tool leaves in /output as they come back and keeps none of them, so a
// running call costs the node its program, its kept stdout and stderr
// (kToolOutputCap each) and the engine's result header, whatever the tool
// writes. Both caps are recorded in the receipt's limits (memory_bytes,
// fs_bytes), so a replay stops where the call stopped.
//
// Calls wait in a bounded queue: at most `max_queued` calls wait for a
// worker; one more is refused at once, a failed call whose reason says the
// node is busy, journaled as its completion like any other result, so it
// never runs later (not even after a restart: its step is done).
//
// Each request is journaled before it is sent and its answer when it comes
// (exchange_journal.h), when the runner has a journal: what a call sent is
// on disk however the call ends, and a call re-issued after a crash is given
// the answers already journaled instead of sending their requests again.
//
// Thread-safe. Calls run on the runner's own worker threads (RunProgram
// blocks for the whole run); the destructor waits for the calls started
// and those queued.
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

#include "core/ed25519.h"
#include "volent/agent/tool_call.h"
#include "volent/egress/gate.h"
#include "volent/journal/journal.h"

namespace volent::sealed {

// Limits for a tool whose manifest leaves one out.
inline constexpr uint64_t kDefaultToolFuel = 1'000'000'000;
inline constexpr int kDefaultToolMemoryMb = 64;  // also files_mb's default: the memory limit
inline constexpr int kDefaultToolTimeMs = 10'000;
// The most a tool may write to stdout (its result) and to stderr.
inline constexpr uint64_t kToolOutputCap = 1 << 20;
// Calls that may wait for a worker when SealedToolOptions::max_queued is 0:
// above the sandbox storm's 10,000 at once (docs/tools.md).
inline constexpr size_t kDefaultMaxQueuedCalls = 16'384;

struct SealedToolOptions {
  std::string data_dir;                                // holds the tool store (DATA_DIR/tools)
  std::vector<core::ed25519::PublicKey> trusted;    // the node's tool keys
  std::string kernel_path;                             // the Ampoule kernel the calls run on
  std::shared_ptr<const core::ed25519::SecretKey> receipt_key;  // signs each call's receipt
  const egress::Gate* gate = nullptr;                  // sends the tools' requests; null: all denied
  journal::Journal* journal = nullptr;                 // journals each request and answer; null: not journaled
  unsigned workers = 0;                                // 0: one per hardware thread
  size_t max_queued = 0;                               // calls waiting for a worker; 0: kDefaultMaxQueuedCalls
};

class SealedToolRunner {
 public:
  explicit SealedToolRunner(SealedToolOptions options);
  ~SealedToolRunner();
  SealedToolRunner(const SealedToolRunner&) = delete;
  SealedToolRunner& operator=(const SealedToolRunner&) = delete;

  // An agent::ToolPerformer for sealed tools: queues the call and returns;
  // `done` gets Run's result on a worker thread. When max_queued calls are
  // waiting already, `done` gets a failed result at once, on the calling
  // thread ({"outcome":"failed","reason":"the node is busy: ..."}), and
  // the call is not run.
  void Perform(const agent::ToolDef& tool, const nlohmann::json& request, const std::string& step_key,
               agent::StepDone done);

  // One call, start to end, on the calling thread; `step_key` is the step's
  // idempotency key ("AGENT/RUN/STEP"). The result:
  //   {"type":"tool","tool":NAME,"outcome":"answered","result":VALUE,
  //    "stdin":TEXT,"stop":"exit","fuel_used":N,"receipt":ENVELOPE,
  //    "http_exchanges":TEXT}
  //   {"type":"tool","tool":NAME,"outcome":"failed","reason":WHY, ...}
  // where "stdin" is the exact bytes the tool read (its arguments),
  // "http_exchanges" the exact bytes of the recorded requests and answers
  // (only when the tool made a request) and "receipt" the signed Ampoule
  // receipt of the run (absent only when the tool could not be run at all:
  // not in the store, no kernel, or its time ran out between two runs).
  // A failed call carries "stdin" and "http_exchanges" too, as far as it
  // got (only a tool that cannot be loaded has neither). This is the
  // journal's record of the call; the model is shown only the result or
  // the reason (agent::ToolResultForModel).
  nlohmann::json Run(const agent::ToolDef& tool, const nlohmann::json& request,
                     const std::string& step_key = "") const;

 private:
  void Work();

  SealedToolOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_; at most max_queued
  bool stopping_ = false;                    // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace volent::sealed
