// The gate's decision log: every decision, durably, in one SQLite file
// (WAL, synchronous=FULL: a decision reported is a decision on disk).
//
// Exactly once rests here. Record() reads whether an idempotency key was
// already sent and inserts the new decision in one BEGIN IMMEDIATE
// transaction, which SQLite serialises across processes, so two concurrent
// submissions can never both see "not yet sent". A unique index admits at
// most one send per key in any case. A send is recorded as pending; its
// delivery (outbox.h) is marked when done, and pending sends left by a
// process that died are delivered by the next one (see submit.h).
//
// Each log has an identity, 16 random bytes made when the file is created
// (or, for a log from before identities, when it is first opened), so that
// its outbox can tell it from any other log, including a new one at the
// same path after the old file was deleted (outbox.h).
//
// One DecisionLog per thread; any number of processes may share the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampoule/gate/decision.h"
#include "core/result.h"
#include "core/sqlite.h"

namespace ampoule::gate {

struct DecisionRow {
  int64_t id = 0;
  std::string decided_at;  // RFC 3339 UTC
  std::string idempotency_key;
  std::string kind;
  std::string decision;  // send, hold, escalate or refuse
  std::vector<std::string> reasons;
  std::string receipt_sha256;  // of the receipt file; empty if it could not be read
  nlohmann::json fields;       // the asserted fields, name -> value
  std::string outbox;          // sends: the folder it goes to
  std::string delivery;        // sends: "pending" or "delivered"
  std::string outbox_file;     // sends, once delivered
};

// What is known about a submission before it is decided.
struct Submission {
  std::string idempotency_key;
  std::string kind;
  std::string receipt_sha256;
  nlohmann::json fields;
  std::string outbox;
};

// The size of a log's identity in bytes; log_id() is twice as many hex digits.
inline constexpr size_t kLogIdBytes = 16;

class DecisionLog {
 public:
  // Opens (creating if needed) the log at `path`. Errors name the file.
  static core::Result<std::unique_ptr<DecisionLog>> Open(const std::string& path);
  ~DecisionLog();
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;

  // Decides and records `submission` atomically: `decide` is called inside
  // the transaction with whether the key already has a send, and its verdict
  // is stored. Returns the stored row.
  core::Result<DecisionRow> Record(const Submission& submission,
                             const std::function<GateVerdict(bool already_sent)>& decide);

  // Sends recorded but not yet marked delivered, oldest first.
  core::Result<std::vector<DecisionRow>> PendingSends();
  core::Status MarkDelivered(int64_t id, const std::string& outbox_file);

  // Every decision, oldest first; only those for `key` when given.
  core::Result<std::vector<DecisionRow>> List(const std::optional<std::string>& key = std::nullopt);

  const std::string& path() const { return path_; }
  // The log's identity: 32 lowercase hex digits, fixed for the file's life.
  const std::string& log_id() const { return id_; }

 private:
  DecisionLog(core::sqlite::Database db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
  core::Result<std::vector<DecisionRow>> Query(const char* sql, const std::optional<std::string>& key);

  core::sqlite::Database db_;
  std::string path_;
  std::string id_;
};

}  // namespace ampoule::gate
