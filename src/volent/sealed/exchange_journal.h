// A sealed tool's HTTP requests journaled one by one (docs/journal.md, "A
// sealed tool's requests"): each request before it is sent (an entry of kind
// tool-http-request) and the answer the tool is given when it comes
// (tool-http-answer), under the step's key and the request's number
// (AGENT/RUN/STEP/http/N, the Idempotency-Key the request is sent with). So
// what a call sent is on disk whatever becomes of the call afterwards: out
// of time, a failed run, the node killed.
//
// A call re-issued after a crash runs from the start and, being
// deterministic (the same stdin, the same answers so far), asks the same
// requests again. A request whose answer is journaled is given that answer
// and not sent again; one journaled without an answer is sent again under
// its same key (the receiver deduplicates, as for http tools:
// docs/agent-runs.md); one that differs from the request journaled under
// its number is not sent and is answered "invalid". A request that cannot be
// journaled is not sent ("not-sent").
//
// Thread-safe: no state but the call's own; the journal is thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "volent/agent/agent_spec.h"
#include "volent/journal/journal.h"

namespace volent::sealed {

class ExchangeJournal {
 public:
  // For the call of `tool` at step `step_key` ("AGENT/RUN/STEP"). With no
  // journal, or a key that is not a step's, nothing is journaled and every
  // request is sent.
  ExchangeJournal(journal::Journal* journal, const agent::ToolDef& tool, const std::string& step_key);

  // Before request `number` (1, 2, ...), as the tool made it, is sent:
  // journals it. nullopt: send it; else the answer to give the tool instead
  // (the one journaled, or why it is not sent).
  std::optional<nlohmann::json> Before(int number, const nlohmann::json& request);
  // When its answer comes: journals it, and returns the answer to give the
  // tool (the one journaled first, should there be one).
  nlohmann::json After(int number, const nlohmann::json& answer);

 private:
  journal::Journal* journal_;
  std::string tool_;
  std::string capability_;
  std::optional<journal::EffectKey> step_;
};

}  // namespace volent::sealed
