#include "core/json.h"
#include "volent/agent/model_step.h"
#include "volent/agent/step_outcome.h"

#include <chrono>
#include <memory>

namespace volent::agent {
namespace {

constexpr int kAttempts = 3;

nlohmann::json CompletionOf(const model::CallResult& result) {
  return result.ok() ? AnsweredCompletion(*result.answer, result.pinned_address) : ErrorCompletion(result.error);
}

// One model call and its attempts, shared by the callbacks that carry it
// from one attempt to the next.
struct ModelCallAttempts : std::enable_shared_from_this<ModelCallAttempts> {
  const model::Client& client;
  Delays& delays;
  nlohmann::json request;
  StepDone done;
  int attempt = 0;

  ModelCallAttempts(const model::Client& c, Delays& d) : client(c), delays(d) {}

  void Try() {
    ++attempt;
    // SendAsync may call back before it returns: nothing follows it here.
    client.SendAsync(request, [self = shared_from_this()](model::CallResult result) {
      self->Answered(std::move(result));
    });
  }

  void Answered(model::CallResult result) {
    if (result.ok() || !result.error.retryable() || attempt >= kAttempts) {
      done(CompletionOf(result));
      return;
    }
    // A provider that is overloaded (429, 5xx) needs longer pauses than a
    // lost connection; one schedule serves both.
    delays.After(std::chrono::milliseconds(500 * attempt * attempt), [self = shared_from_this()] { self->Try(); });
  }
};

}  // namespace

ModelPerformer ClientModelPerformer(const model::Client& client, Delays& delays) {
  return [&client, &delays](const nlohmann::json& request, const std::string& /*key: in the request's headers*/,
                            StepDone done) {
    auto call = std::make_shared<ModelCallAttempts>(client, delays);
    call->request = request;
    call->done = std::move(done);
    call->Try();
  };
}

model::Conversation FirstConversation(const AgentSpec& agent, const nlohmann::json& input) {
  model::Conversation conversation;
  conversation.system = agent.instructions;
  conversation.messages.push_back(
      model::Message::User(core::DumpJson(input)));
  for (const ToolDef& tool : agent.tools) {
    conversation.tools.push_back({tool.name, tool.description, tool.input_schema});
  }
  return conversation;
}

nlohmann::json AnsweredCompletion(const model::Answer& answer, const std::string& address) {
  nlohmann::json completion = {{"type", "model"}, {"outcome", StepOutcomeName(StepOutcome::kAnswered)}, {"answer", model::AnswerToJson(answer)}};
  if (!address.empty()) completion["address"] = address;
  return completion;
}

nlohmann::json ErrorCompletion(const model::ModelError& error) {
  nlohmann::json completion = {{"type", "model"},
                               {"outcome", StepOutcomeName(StepOutcome::kError)},
                               {"kind", std::string(model::ErrorKindName(error.kind))},
                               {"message", error.message}};
  if (error.http_status != 0) completion["http_status"] = error.http_status;
  return completion;
}

}  // namespace volent::agent
