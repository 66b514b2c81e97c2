// The run manager's helpers over journal entries, shared by its files
// (run_manager.cc, run_rebuild.cc, run_workers.cc, run_steps.cc,
// run_queries.cc); not for other users.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "volent/agent/runs.h"
#include "volent/journal/journal.h"

namespace volent::agent::internal {

using core::Error;
using core::Result;
using core::Status;
using journal::EffectKey;
using journal::EntryKind;

// A stored payload as JSON (null if it is not: Verify reports such entries).
nlohmann::json Payload(const journal::Entry& entry);

// The string `key` of `object`, "" if there is none.
std::string StringField(const nlohmann::json& object, const char* key);

// How a run-finished entry says the run ended: "finished", or failed (any
// other text too, since only those two end a run).
RunStatus EndedStatus(const nlohmann::json& payload);

// An approval-decided entry applied to `approval`.
void ApplyDecision(ApprovalView& approval, const journal::Entry& entry);

// A refusal of `kind` (runs.h lists what each kind means to the API).
core::Error Refuse(core::ErrorKind kind, std::string message);

}  // namespace volent::agent::internal
