// The tool capability import (wit/volent-tool.wit, docs/tools.md): module
// "volent:tool/http@0.1.0", functions
//   request(ptr, len) -> i32   the request (JSON text) at ptr; returns the
//                              answer's length in bytes
//   answer(ptr, len) -> i32    copies up to len bytes of the last answer to
//                              ptr; returns how many it copied
//
// The engine never sends anything. Every answer comes from the exchanges
// recorded for the run, the input named kHttpExchangesInput (one JSON object
// a line, {"request":{...},"answer":{...}}), in order: the k-th request the
// guest makes must be the k-th recorded one (compared as canonical JSON),
// else the run traps. That is how a receipt's replay gives a tool the very
// answers it had. A request past the recorded ones is answered
//   {"error":"limit"}        once kMaxHttpRequests have been answered;
//   by the host              when `ask_host`: the run stops (a trap) and
//                            RunResult::http_pending holds the request, for
//                            the node to send through its egress gate and
//                            run the call again with the answer recorded
//                            (docs/decisions/0037-tool-http-capability.md);
//   {"error":"unavailable"}  otherwise (a plain `ampoule run`).
// A request that is not a JSON object of at most kMaxHttpRequestBytes is
// answered {"error":"invalid"} at once and is not an exchange.
//
// Not thread-safe: one per run session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampoule/wasm/runtime.h"
#include "core/result.h"

namespace ampoule::wasi {

inline constexpr std::string_view kHttpModuleName = "volent:tool/http@0.1.0";
inline constexpr std::string_view kHttpExchangesInput = "http-exchanges.jsonl";
inline constexpr size_t kMaxHttpRequests = 16;
inline constexpr size_t kMaxHttpRequestBytes = 64 * 1024;

struct HttpCapabilityConfig {
  std::vector<uint8_t> exchanges;  // the recorded exchanges (kHttpExchangesInput's bytes)
  bool ask_host = false;           // stop the run at an unanswered request (above)
};

// One recorded exchange, as canonical JSON text.
struct HttpExchange {
  std::string request;
  std::string answer;
};

// Reads a record of exchanges. Errors name the line and what is wrong
// (not JSON, not an object with exactly "request" and "answer" objects,
// more than kMaxHttpRequests lines).
core::Result<std::vector<HttpExchange>> ParseHttpExchanges(std::string_view text);

// One line of that record (with its '\n') for a request and its answer.
std::string HttpExchangeLine(const nlohmann::json& request, const nlohmann::json& answer);

// The guest's request text as the canonical JSON it is compared and recorded
// as, or the {"error":"invalid"} answer's reason.
core::Result<std::string> CanonicalHttpRequest(std::string_view text);

class HttpCapability {
 public:
  // Adds the two host functions to `store`.
  HttpCapability(wasm::Store& store, HttpCapabilityConfig config);
  HttpCapability(const HttpCapability&) = delete;
  HttpCapability& operator=(const HttpCapability&) = delete;

  // The host function `name` of kHttpModuleName, or null.
  wasm::FunctionInstance* Find(std::string_view name) const;

  // The request the run stopped at, when ask_host; "" otherwise.
  const std::string& pending() const { return pending_; }

 private:
  wasm::HostResult Request(wasm::HostContext& hc, std::span<const uint64_t> args,
                           std::span<uint64_t> results);
  wasm::HostResult Answer(wasm::HostContext& hc, std::span<const uint64_t> args,
                          std::span<uint64_t> results);

  HttpCapabilityConfig config_;
  std::optional<std::vector<HttpExchange>> recorded_;  // parsed at the first request
  size_t next_ = 0;            // the next recorded exchange
  std::string last_answer_;
  std::string pending_;
  wasm::FunctionInstance* request_ = nullptr;
  wasm::FunctionInstance* answer_ = nullptr;
};

}  // namespace ampoule::wasi
