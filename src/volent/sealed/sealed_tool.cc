#include "volent/agent/step_outcome.h"
#include "volent/sealed/sealed_tool.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "ampoule/run/receipt_builder.h"
#include "ampoule/run/run_program.h"
#include "ampoule/wasi/http_capability.h"
#include "core/json.h"
#include "volent/sealed/exchange_journal.h"
#include "volent/sealed/tool_http.h"
#include "volent/tools/tool_store.h"

namespace volent::sealed {
namespace run = ampoule::run;

namespace {

// The most one request may take, within what is left of the call's time.
constexpr int64_t kToolRequestTimeoutMs = 10'000;

nlohmann::json Failed(const agent::ToolDef& tool, const std::string& reason) {
  return {{"type", "tool"}, {"tool", tool.name}, {"outcome", agent::StepOutcomeName(agent::StepOutcome::kFailed)}, {"reason", reason}};
}

// `text` with invalid UTF-8 replaced by U+FFFD: what a tool writes is any
// bytes, and the journal takes only valid JSON text.
std::string ValidUtf8(const std::string& text) {
  return nlohmann::json::parse(core::DumpJson(nlohmann::json(text))).get<std::string>();
}

// The last non-empty line of what the tool wrote to stderr, for the model:
// at most 500 bytes, valid UTF-8.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  std::string line = text.substr(start, end - start + 1);
  return ValidUtf8(line.size() > 500 ? line.substr(0, 500) + "..." : line);
}

std::string WhyStopped(const run::RunRecord& record, const std::string& stderr_data) {
  const run::RunOutcome& r = record.result;
  switch (r.stop) {
    case run::Stop::kExit: {
      std::string why = "the tool exited with status " + std::to_string(r.exit_code);
      const std::string line = LastLine(stderr_data);
      return line.empty() ? why : why + ": " + line;
    }
    case run::Stop::kTrap:
      return "the tool trapped: " + r.trap;
    case run::Stop::kFuel:
      return "the tool ran out of fuel (limit " + std::to_string(record.limits.fuel) + ")";
    case run::Stop::kMemory:
      return "the tool hit its memory limit (" + std::to_string(record.limits.memory_bytes >> 20) + " MiB)";
    case run::Stop::kTimeout:
      return "the tool ran out of time (limit " + std::to_string(record.limits.timeout_seconds) + " s)";
  }
  return "the tool stopped";
}

}  // namespace

SealedToolRunner::SealedToolRunner(SealedToolOptions options) : options_(std::move(options)) {
  if (options_.max_queued == 0) options_.max_queued = kDefaultMaxQueuedCalls;
  unsigned n = options_.workers ? options_.workers : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < n; ++i) workers_.emplace_back([this] { Work(); });
}

SealedToolRunner::~SealedToolRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
}

void SealedToolRunner::Work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and every queued call has run
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

void SealedToolRunner::Perform(const agent::ToolDef& tool, const nlohmann::json& request,
                               const std::string& step_key, agent::StepDone done) {
  size_t waiting = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    waiting = queue_.size();
    if (waiting < options_.max_queued) {
      queue_.push_back(
          [this, tool, request, step_key, done = std::move(done)] { done(Run(tool, request, step_key)); });
    }
  }
  if (waiting < options_.max_queued) {
    cv_.notify_one();
    return;
  }
  // Refused, outside the lock (the completion is journaled on this thread):
  // the step is done, so the call never runs, not even after a restart.
  done(Failed(tool, "the node is busy: " + std::to_string(waiting) +
                        " sealed tool calls are waiting for a worker, the most it queues; "
                        "the call was not run (try again later)"));
}

nlohmann::json SealedToolRunner::Run(const agent::ToolDef& tool, const nlohmann::json& request,
                                     const std::string& step_key) const {
  tools::ToolStore store(options_.data_dir);
  auto loaded = store.Load(tool.component, options_.trusted);
  if (!loaded) return Failed(tool, "the tool cannot be loaded: " + loaded.message());
  if (loaded->info.kind != tool.kind) {
    return Failed(tool, "the stored tool was signed as a " + loaded->info.kind + " tool, not " + tool.kind);
  }

  const nlohmann::json arguments = request.contains("arguments") ? request["arguments"] : nlohmann::json::object();
  const std::string stdin_text = core::DumpJson(arguments);

  run::RunSpec spec;
  spec.kernel_path = options_.kernel_path;
  // The kernel's runtime for the kind: the module itself, or python.wasm /
  // js.wasm running the program.
  spec.runtime = tool.kind;
  spec.program_name = tool.kind == "python" ? "tool.py" : tool.kind == "js" ? "tool.js" : "tool.wasm";
  spec.program.assign(loaded->bytes.begin(), loaded->bytes.end());
  spec.stdin_bytes.assign(stdin_text.begin(), stdin_text.end());
  spec.limits.fuel = tool.fuel ? tool.fuel : kDefaultToolFuel;
  spec.limits.memory_bytes = uint64_t(tool.memory_mb ? tool.memory_mb : kDefaultToolMemoryMb) << 20;
  // The tool's files, within its stated limits (the top of sealed_tool.h).
  spec.limits.fs_bytes = tool.files_mb ? uint64_t(tool.files_mb) << 20 : spec.limits.memory_bytes;
  spec.limits.output_cap_bytes = kToolOutputCap;
  spec.http_ask_host = true;

  // Run, and again after each request the run stopped at, with its answer
  // recorded (the top of sealed_tool.h).
  const int time_ms = tool.time_ms ? tool.time_ms : kDefaultToolTimeMs;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(time_ms);
  std::string exchanges;
  // A call that ends before its last run still records what it read and
  // what it sent: the journal keeps the record of every call.
  auto failed = [&](const std::string& reason) {
    nlohmann::json result = Failed(tool, reason);
    result["stdin"] = stdin_text;
    if (!exchanges.empty()) result["http_exchanges"] = exchanges;
    return result;
  };
  ExchangeJournal journaled(options_.journal, tool, step_key);
  core::Result<run::ProgramRun> ran = core::Error{""};
  for (int number = 1;; ++number) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return failed("the tool ran out of time (limit " + std::to_string(time_ms / 1000.0) +
                    " s) waiting for the answers to its " + std::to_string(number - 1) + " HTTP requests");
    }
    spec.limits.timeout_seconds = left.count() / 1000.0;
    spec.inputs.clear();
    if (!exchanges.empty()) {
      spec.inputs.push_back({std::string(ampoule::wasi::kHttpExchangesInput), {exchanges.begin(), exchanges.end()}});
    }
    ran = run::RunProgram(spec);
    if (!ran) return failed("the tool could not be run: " + ran.message());
    if (ran->http_pending.empty()) break;
    // Journaled before it is sent; an answer journaled before a restart is
    // given again without sending.
    ToolHttpExchange exchange;
    exchange.request = RecordedRequest(ran->http_pending);
    if (auto given = journaled.Before(number, exchange.request)) {
      exchange.answer = std::move(*given);
    } else {
      exchange = SendToolRequest(options_.gate, tool, ran->http_pending, step_key, number,
                                 int(std::min<int64_t>(left.count(), kToolRequestTimeoutMs)));
      exchange.answer = journaled.After(number, exchange.answer);
    }
    exchanges += ampoule::wasi::HttpExchangeLine(exchange.request, exchange.answer);
  }

  const run::RunRecord& record = ran->record;
  nlohmann::json result = {{"type", "tool"}, {"tool", tool.name}, {"stdin", stdin_text},
                           {"stop", std::string(run::StopName(record.result.stop))},
                           {"fuel_used", record.result.fuel_used}};
  if (!exchanges.empty()) result["http_exchanges"] = exchanges;
  if (record.result.stop == run::Stop::kExit && record.result.exit_code == 0 && !record.stdout_digest.truncated) {
    auto value = core::ParseJsonBounded(ran->stdout_data, "the tool's output",
                                           {agent::kMaxJournaledBody});
    if (value) {
      result["outcome"] = agent::StepOutcomeName(agent::StepOutcome::kAnswered);
      result["result"] = std::move(*value);
    } else {
      result["outcome"] = agent::StepOutcomeName(agent::StepOutcome::kFailed);
      result["reason"] = value.message() + " (a tool writes one JSON value of at most " +
                         std::to_string(agent::kMaxJournaledBody) + " bytes to stdout)";
    }
  } else {
    result["outcome"] = agent::StepOutcomeName(agent::StepOutcome::kFailed);
    result["reason"] = record.stdout_digest.truncated ? "the tool wrote more than " +
                                                            std::to_string(kToolOutputCap) + " bytes to stdout"
                                                      : WhyStopped(record, ran->stderr_data);
  }
  if (options_.receipt_key) {
    auto receipt = core::ParseJsonBounded(run::MakeReceipt(record, *options_.receipt_key), "the receipt",
                                             {size_t{64} << 20});
    if (receipt) result["receipt"] = std::move(*receipt);
  }
  return result;
}

}  // namespace volent::sealed
