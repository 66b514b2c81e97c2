// Delivering a sent action: the local outbox, a folder where each message
// lands as one file (a stand-in for an email or payment system that other
// software, or a test, picks up from).
//
// An outbox belongs to one decision log. The first gate to use the folder
// claims it with a marker file, `.ampoule-outbox`, naming its log's
// identity (decision_log.h); a gate on any other log (a second --db, or a
// gate.db deleted and made anew) is refused, and so is a folder that holds
// files but no marker, rather than guess whose files they are.
//
// A message's file is named by the log, the decision and the key,
// `send-<log>-<id>-<key>.json` (OutboxFileName), and created exclusively:
// written to a hidden temporary file, flushed, and hard-linked to its name.
// A delivery that finds the name taken (after a crash, or by a process
// finishing another's pending send) counts as delivered only if the file's
// bytes are exactly this decision's message; anything else there is an
// error, never "delivered". Readers should ignore dot files: `.*.tmp` are
// partial writes, `.ampoule-outbox` is the marker.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <string>

#include "ampoule/gate/decision_log.h"
#include "core/result.h"

namespace ampoule::gate {

// The marker's name inside the outbox folder.
inline constexpr const char* kOutboxMarker = ".ampoule-outbox";

// Creates the outbox folder `dir` if missing, checks that this process can
// write to it, and that it belongs to `log` (claiming it if it is new or
// empty), so that a send is never recorded for an outbox that cannot take
// it. Errors say whose the outbox is and what to do.
core::Status PrepareOutbox(const std::string& dir, const DecisionLog& log);

// The file name of `send`'s message from the log with identity `log_id`:
// `send-` 16 hex digits of the identity, `-` the decision id, `-` 16 hex
// digits of the SHA-256 of the idempotency key, `.json`.
std::string OutboxFileName(const std::string& log_id, const DecisionRow& send);

// The message delivered for a send decision (docs/gate.md); the same bytes
// for the same decision every time, so that a delivery can recognise its own.
std::string OutboxMessage(const std::string& log_id, const DecisionRow& send);

// Delivers `send`, recorded in `log`, into its outbox folder (prepared as
// PrepareOutbox does) and returns the message file's path. Durable when it
// returns: file and folder synced.
core::Result<std::string> DeliverToOutbox(const DecisionLog& log, const DecisionRow& send);

}  // namespace ampoule::gate
