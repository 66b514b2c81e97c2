#include "volent/sealed/exchange_journal.h"

#include <cstdio>

#include "core/json.h"

namespace volent::sealed {
namespace {

using journal::EntryKind;

// `value` as the journal and the tool get it: bytes that are not UTF-8 (a
// response header) replaced, as core::DumpJson writes the exchange.
nlohmann::json Printable(const nlohmann::json& value) {
  return nlohmann::json::parse(core::DumpJson(value), nullptr, /*allow_exceptions=*/false);
}

nlohmann::json Member(const journal::Entry& entry, const char* name) {
  auto payload = nlohmann::json::parse(entry.payload, nullptr, /*allow_exceptions=*/false);
  if (!payload.is_object() || !payload.contains(name)) return nullptr;
  return payload[name];
}

}  // namespace

ExchangeJournal::ExchangeJournal(journal::Journal* journal, const agent::ToolDef& tool, const std::string& step_key)
    : journal_(journal), tool_(tool.name), capability_(tool.capability), step_(journal::EffectKey::Parse(step_key)) {}

std::optional<nlohmann::json> ExchangeJournal::Before(int number, const nlohmann::json& request) {
  if (journal_ == nullptr || !step_) return std::nullopt;
  const nlohmann::json asked = Printable(request);
  auto recorded = journal_->AppendForRequest(EntryKind::kToolHttpRequest, *step_, uint64_t(number),
                                             {{"tool", tool_}, {"capability", capability_}, {"number", number},
                                              {"request", asked}});
  if (!recorded.ok()) {
    return nlohmann::json{{"error", "not-sent"},
                          {"reason", "the node could not journal the request, so it was not sent: " +
                                         recorded.message()}};
  }
  if (!recorded->already_recorded) return std::nullopt;
  // Asked before, by this call before the node restarted.
  if (Member(recorded->entry, "request") != asked) {
    return nlohmann::json{{"error", "invalid"},
                          {"reason", "request " + std::to_string(number) + " of this call was journaled as a "
                                     "different request before the node restarted; this one was not sent"}};
  }
  auto answered = journal_->GetForRequest(*step_, uint64_t(number), EntryKind::kToolHttpAnswer);
  if (answered.ok() && *answered) {
    nlohmann::json answer = Member(**answered, "answer");
    if (answer.is_object()) return answer;
  }
  return std::nullopt;  // no answer journaled: sent again, under the same key
}

nlohmann::json ExchangeJournal::After(int number, const nlohmann::json& answer) {
  nlohmann::json given = Printable(answer);
  if (journal_ == nullptr || !step_) return given;
  auto recorded = journal_->AppendForRequest(EntryKind::kToolHttpAnswer, *step_, uint64_t(number),
                                             {{"tool", tool_}, {"number", number}, {"answer", given}});
  if (!recorded.ok()) {
    // The request went out; its answer is still the tool's (and the call's
    // completion records it). After a crash it would be sent again.
    std::fprintf(stderr, "volent node: the answer to request %s was not journaled: %s\n",
                 journal::RequestKey(*step_, uint64_t(number)).c_str(), recorded.message().c_str());
    return given;
  }
  if (recorded->already_recorded) {
    nlohmann::json first = Member(recorded->entry, "answer");
    if (first.is_object()) return first;
  }
  return given;
}

}  // namespace volent::sealed
