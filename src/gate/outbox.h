// Delivering a sent action: the local outbox, a folder where each message
// lands as one file (a stand-in for an email or payment system that other
// software, or a test, picks up from).
//
// Delivery is idempotent per decision: the message is written to a hidden
// temporary file, flushed, and hard-linked to `send-<id>.json`; a second
// delivery of the same decision (after a crash, or by a process finishing
// another's pending send) finds the name taken and does nothing. Readers
// should ignore dot files, which are partial writes.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <string>

#include "gate/decision_log.h"
#include "util/result.h"

namespace ampoule::gate {

// Creates the outbox folder `dir` if missing and checks that this process
// can write to it, so that a send is never recorded for an outbox that
// cannot take it.
Status PrepareOutbox(const std::string& dir);

// The message delivered for a send decision (docs/gate.md).
std::string OutboxMessage(const DecisionRow& send);

// Delivers `send` into its outbox folder (created if missing) and returns
// the message file's path. Durable when it returns: file and folder synced.
Result<std::string> DeliverToOutbox(const DecisionRow& send);

}  // namespace ampoule::gate
