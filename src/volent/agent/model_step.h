// The model steps of a run (docs/agent-runs.md): the conversation the loop
// sends, the performer that makes the call, and the completion journaled.
//
// A model step's intent is model::JournalSafeRequest of the call (no API
// key). Its completion is one of
//   {"type":"model","outcome":"answered","answer":AnswerToJson(...),"address":"IP:PORT"}
//   {"type":"model","outcome":"error","kind":KIND,"message":...}
// where KIND is model::ErrorKindName; an error completion ends the run as
// failed. Replays read the answer back (model::AnswerFromJson) to rebuild
// the conversation, so a replay takes the path the run took.
//
// Thread-safe: no shared mutable state.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "volent/agent/agent_spec.h"
#include "volent/agent/delays.h"
#include "volent/agent/tool_call.h"
#include "volent/model/client.h"
#include "volent/model/conversation.h"

namespace volent::agent {

// Starts a journaled model request (JournalSafeRequest's form; after a
// crash, the one recorded first) under `idempotency_key` and returns;
// `done` gets the completion to journal (the forms above). The request is
// read before the performer returns.
using ModelPerformer =
    std::function<void(const nlohmann::json& request, const std::string& idempotency_key, StepDone done)>;

// The node's performer: `client.SendAsync`. A retryable error (not-sent,
// failed, unavailable: model::ModelError::retryable) is tried again with the
// same request, hence the same Idempotency-Key, after a pause on `delays`
// (3 attempts in all); then the error is the completion. REQUIRES: `client`
// and `delays` outlive every call started.
ModelPerformer ClientModelPerformer(const model::Client& client, Delays& delays);

// The conversation of a run before its first model call: the agent's
// instructions as the system text, the run's input as compact JSON text in
// the first user message, and the agent's tools offered.
model::Conversation FirstConversation(const AgentSpec& agent, const nlohmann::json& input);

// The completions of a model step (the forms above).
nlohmann::json AnsweredCompletion(const model::Answer& answer, const std::string& address);
nlohmann::json ErrorCompletion(const model::ModelError& error);

}  // namespace volent::agent
