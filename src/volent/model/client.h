// The model client: one call of a model provider (Anthropic Messages, OpenAI
// Chat Completions, or an OpenAI-compatible endpoint), sent through the
// egress gate under the agent's model capability (docs/models.md).
//
// A call is made in two halves so that the journal holds exactly what is
// sent, minus the secret: JournalSafeRequest turns a ModelCall into the
// request as it is journaled (method, URL, non-secret headers including
// Idempotency-Key, the JSON body, the time limit — no API key, by
// construction), and Client::Send sends such a journaled request, adding the
// key only on its way to the gate. Call does both. After a crash, the loop
// re-sends the request it journaled first with Send (or SendAsync, its
// non-blocking twin).
//
// Errors are values (ModelError), never exceptions, and are written for the
// operator: what happened, and what to do. No message, and nothing this
// module returns, contains an API key: the key is added to the outgoing
// headers only, and any echo of it in a provider's or the gate's words is
// replaced by "[redacted]". Nothing is logged here.
//
// A call is one attempt: retrying (ModelError::retryable, with the same
// Idempotency-Key) is the caller's decision.
//
// Thread-safe: a Client is read-only; Call, Send and SendAsync may run on
// many threads.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/egress/gate.h"
#include "volent/model/conversation.h"
#include "volent/model/keys.h"
#include "volent/model/model_spec.h"

namespace volent::model {

struct ModelCall {
  ModelSpec model;
  Conversation conversation;   // max_tokens is capped by model.max_tokens_per_call
  std::string idempotency_key;  // the step's key, AGENT/RUN/STEP; sent as Idempotency-Key
  int timeout_ms = 120000;      // the whole exchange (> 0)
};

enum class ErrorKind {
  kConfig,       // the call cannot be made as configured (provider, capability, key, endpoint): nothing was sent
  kDenied,       // the egress gate refused it: nothing was sent
  kNotSent,      // no connection could be made: nothing was sent
  kFailed,       // it may have reached the provider, but no whole answer came back
  kRejected,     // the provider refused it (HTTP 4xx other than 429, or a redirect)
  kUnavailable,  // the provider is overloaded or failing (HTTP 429, 5xx)
  kMalformed,    // a 2xx answer that is not one (not JSON, missing fields, arguments not JSON)
};
std::string_view ErrorKindName(ErrorKind kind);  // "config", "denied", "not-sent", "failed", "rejected", "unavailable", "malformed"

struct ModelError {
  ErrorKind kind = ErrorKind::kConfig;
  std::string message;  // for a person; never holds the API key
  int http_status = 0;  // the provider's status, when it answered
  // Worth trying again with the same Idempotency-Key (not-sent, failed, unavailable).
  bool retryable() const;
};

struct CallResult {
  std::optional<Answer> answer;
  ModelError error;             // when !answer
  std::string pinned_address;   // the address the gate connected to (or tried), when it came to that
  bool ok() const { return answer.has_value(); }
};

// The request as the journal keeps it:
// {"type":"model","provider","model","capability","method":"POST","url",
//  "headers":{NAME:VALUE,...},"body":{...},"timeout_ms"}
// or, when the call cannot be made as configured, {"type":"model","error":MESSAGE}
// (the error Send then returns as kConfig). Holds no secret.
nlohmann::json JournalSafeRequest(const ModelCall& call);

class Client {
 public:
  // REQUIRES: `gate` outlives the client.
  Client(const egress::Gate& gate, ModelKeys keys) : gate_(gate), keys_(std::move(keys)) {}

  // JournalSafeRequest, then Send.
  CallResult Call(const ModelCall& call) const;

  // Sends a request of JournalSafeRequest's form under its capability, with
  // the API key configured for that capability, and reads the answer.
  // Blocks until the answer is read or the call's time limit is up.
  CallResult Send(const nlohmann::json& journaled_request) const;

  // The same, without blocking: `done` is called exactly once with what
  // Send would return. A request that cannot be sent as it is (kConfig) is
  // answered at once, on the caller's thread; otherwise `done` runs where
  // the gate's SendAsync calls back (one of its I/O threads, or the
  // caller's thread when the gate refuses before any I/O). The caller holds
  // no lock it needs in `done`. The request is read before this returns.
  void SendAsync(const nlohmann::json& journaled_request, std::function<void(CallResult)> done) const;

 private:
  struct Prepared;
  Prepared Prepare(const nlohmann::json& journaled_request) const;
  static CallResult Read(const Prepared& prepared, egress::SendResult sent);

  const egress::Gate& gate_;
  ModelKeys keys_;
};

}  // namespace volent::model
