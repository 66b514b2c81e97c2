// One entry of the node's journal (docs/journal.md): what it records, the
// idempotency key of a side effect, and the entry's hash in the chain.
//
// The hash is SHA-256 over a length-prefixed encoding of every field, in a
// fixed order, beginning with a domain tag (docs/journal.md, "Hash
// encoding"), so an auditor can recompute it with any SHA-256 and no
// knowledge of SQLite.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace volent::journal {

// What an entry records. The names (KindName) are stored and hashed; never
// rename one, and add new kinds at the end.
enum class EntryKind {
  kIntent,             // a side effect is about to happen; payload: the request
  kCompletion,         // it happened; payload: its result
  kApprovalRequested,  // a step waits for a human; payload: what is asked
  kApprovalDecided,    // the human answered; payload: who, when, the decision
  kRunStarted,         // step 0 by convention; payload: the run's inputs
  kRunFinished,        // step 0 by convention; payload: the outcome
  kEgressDenied,       // the egress gate refused a request; payload: the denial
                       // (src/volent/agent/denial_journal.h)
  kCredentialCreated,  // a control API credential was made; payload: its id, name,
                       // roles, expiry and who made it (never the secret)
  kCredentialRevoked,  // a credential was revoked; payload: its id and who revoked it
  kAuthFailures,       // failed authentications from all addresses, counted over an
                       // interval (src/volent/control/failure_limiter.h)
  kToolHttpRequest,    // a sealed tool's HTTP request, before it is sent; key
                       // RequestKey (src/volent/sealed/exchange_journal.h)
  kToolHttpAnswer,     // the answer that request got (or why none), when it came
};
// The number of kinds: EntryKind values are 0 .. kKindCount - 1.
inline constexpr size_t kKindCount = static_cast<size_t>(EntryKind::kToolHttpAnswer) + 1;
std::string_view KindName(EntryKind kind);
std::optional<EntryKind> ParseKind(std::string_view name);

// Limits on the parts of a key (named so callers can check early).
inline constexpr size_t kMaxKeyPartLength = 200;
inline constexpr uint64_t kMaxStep = 0x7fffffffffffffffULL;  // SQLite's INTEGER range

// The idempotency key of a step: agent, run and step number. Its text form
// "AGENT/RUN/STEP" is what receivers see in the Idempotency-Key header.
struct EffectKey {
  std::string agent;
  std::string run;
  uint64_t step = 0;

  std::string ToString() const;
  // `text` as a step's key when it is one, written as ToString writes it
  // ("a/r/7", not "a/r/07") and passing Check; nullopt otherwise.
  static std::optional<EffectKey> Parse(std::string_view text);
  // Ok if agent and run are 1..kMaxKeyPartLength bytes of printable ASCII
  // without '/' or spaces and step <= kMaxStep; otherwise says what is wrong.
  core::Status Check() const;
};

// The key of request `number` (1, 2, ...) of the sealed tool call at step
// `step`: the step's key followed by "/http/NUMBER", the Idempotency-Key
// the request is sent with. Entries of the kinds for which IsRequestKind
// holds have such a key; every other entry has its step's key.
std::string RequestKey(const EffectKey& step, uint64_t number);
bool IsRequestKind(EntryKind kind);

// 64 '0' characters: the prev_hash of entry #1, and the head of an empty
// journal.
inline constexpr std::string_view kGenesisHash =
    "0000000000000000000000000000000000000000000000000000000000000000";
// The first field of every hashed encoding.
inline constexpr std::string_view kHashDomain = "volent-journal/v1";

struct Entry {
  uint64_t seq = 0;  // 1, 2, 3, ... with no gaps
  EntryKind kind = EntryKind::kIntent;
  std::string agent;
  std::string run;
  uint64_t step = 0;
  std::string key;      // EffectKey::ToString() of (agent, run, step)
  std::string payload;  // compact JSON text, hashed as stored
  int64_t time_ms = 0;  // Unix time in milliseconds, from the journal's clock
  std::string prev_hash;  // lowercase hex of the previous entry's hash
  std::string hash;       // lowercase hex of EntryHash(*this)
};

// The lowercase hex SHA-256 of the entry's encoding (every field but `hash`).
std::string EntryHash(const Entry& entry);

}  // namespace volent::journal
