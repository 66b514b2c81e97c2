// The mock model's routes, independent of sockets: a request in, an answer
// and how long to hold it out. server.h puts it on the wire.
// docs/mock-model.md.
//
//   POST /v1/messages          Anthropic Messages (anthropic_format.h)
//   POST /v1/chat/completions  OpenAI Chat Completions (openai_format.h)
//   GET  /stats                counters (Stats)
//   GET  /requests             the model requests recorded (Recorded), with
//                              ServiceOptions::record > 0; else 404
//   GET  /healthz              {"status": "ok"}
//
// Model calls are answered by the script when there is one, else by the
// default plan (plan.h); the headers are checked before the body. Every
// answer on a model path (errors too) is held `latency` plus a
// deterministic 0..`jitter` (from the request's sequence number).
//
// Thread-safe: Handle, Finished and Stats may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/mockmodel/api_error.h"
#include "volent/mockmodel/plan.h"

namespace volent::mockmodel {

inline constexpr size_t kMaxBodyBytes = 4 * 1024 * 1024;
// Idempotency keys remembered for the duplicate count (beyond, new keys are
// counted but not remembered).
inline constexpr size_t kMaxRememberedKeys = 1'000'000;
// The most model requests ServiceOptions::record may keep (each up to
// kMaxBodyBytes).
inline constexpr size_t kMaxRecordedRequests = 1000;

struct ServiceOptions {
  std::optional<std::string> api_key;  // unset: any key, but a key is needed
  std::optional<Script> script;        // unset: the default plan
  std::chrono::milliseconds latency{0};
  std::chrono::milliseconds jitter{0};
  // The first `record` model requests are kept whole (0: none), so a test
  // can read what a client sent (GET /requests).
  size_t record = 0;
};

struct ServiceRequest {
  std::string method;  // "POST", "GET", ...
  std::string target;  // path and query
  std::string body;
  std::optional<std::string> x_api_key;
  std::optional<std::string> anthropic_version;
  std::optional<std::string> authorization;
  std::optional<std::string> idempotency_key;
};

struct ServiceResponse {
  int status = 200;
  std::string body;  // JSON
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type
  std::chrono::milliseconds delay{0};
  bool in_flight = false;  // counted in flight until Finished
};

class Service {
 public:
  explicit Service(ServiceOptions options);

  ServiceResponse Handle(const ServiceRequest& request);
  // The answer to `response` was written (or could not be).
  void Finished(const ServiceResponse& response);
  // A request whose body exceeds kMaxBodyBytes: 413 in the format of the
  // API its path belongs to. Counted, not delayed.
  ServiceResponse TooLarge(std::string_view target);

  // {requests, by_api: {anthropic, openai}, errors, answers: {tool_calls,
  //  text}, in_flight, peak_in_flight, idempotency_keys, duplicates}
  nlohmann::json Stats() const;
  // {"requests": [{"api": "anthropic"|"openai", "idempotency_key": KEY|null,
  //  "body": TEXT}, ...], "dropped": N}: the model requests kept, in the
  // order received (every one on a model path, refused ones too; a body's
  // invalid UTF-8 as U+FFFD), and how many came after the first `record`.
  nlohmann::json Recorded() const;

 private:
  enum class Api { kAnthropic, kOpenAi };

  ServiceResponse ModelCall(Api api, const ServiceRequest& request);
  ServiceResponse Error(Api api, const ApiError& error) const;
  void CountIdempotencyKey(const std::optional<std::string>& key);
  void Record(Api api, const ServiceRequest& request);

  const ServiceOptions options_;
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> anthropic_{0};
  std::atomic<uint64_t> openai_{0};
  std::atomic<uint64_t> errors_{0};
  std::atomic<uint64_t> tool_call_answers_{0};
  std::atomic<uint64_t> text_answers_{0};
  std::atomic<int64_t> in_flight_{0};
  std::atomic<int64_t> peak_in_flight_{0};
  std::atomic<uint64_t> duplicates_{0};
  mutable std::mutex keys_mu_;
  std::unordered_set<std::string> keys_;  // guarded by keys_mu_
  uint64_t distinct_keys_ = 0;            // guarded by keys_mu_
  mutable std::mutex recorded_mu_;
  nlohmann::json recorded_ = nlohmann::json::array();  // guarded by recorded_mu_
  uint64_t dropped_ = 0;                               // guarded by recorded_mu_
};

}  // namespace volent::mockmodel
