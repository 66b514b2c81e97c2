#include "core/json.h"
#include "volent/agent/denial_journal.h"

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace volent::agent {
namespace {

// The key of a denial no step asked for: agent "egress", this run, and the
// entry's own seq as the step (Journal::AppendOwnKey), unique across
// threads, processes and restarts because seqs are. The run begins with '~',
// which no run id has (run ids are letters, digits, '_' and '-'), so no
// agent's step (not even one of an agent named "egress") shares the key.
constexpr char kOwnAgent[] = "egress";
constexpr char kOwnRun[] = "~denied";

nlohmann::json Payload(const egress::Denial& denial) {
  return {{"capability", denial.capability}, {"method", denial.method}, {"url", denial.url},
          {"reason", denial.reason},         {"hop", denial.hop},       {"origin", denial.origin}};
}

// Invalid UTF-8 cannot be journaled as JSON text; such bytes (a URL or a
// reason quoting what was refused) are replaced rather than the denial lost.
nlohmann::json Printable(const nlohmann::json& payload) {
  return nlohmann::json::parse(core::DumpJson(payload));
}

// At most 200 bytes of `text` for a log line, control bytes as '?'.
std::string ForLog(std::string_view text) {
  std::string out(text.substr(0, 200));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < ' ' || c == 0x7f) c = '?';
  }
  return out;
}

}  // namespace

egress::DenialSink JournalDenials(journal::Journal& journal) {
  return [&journal](const egress::Denial& denial) {
    try {
      nlohmann::json payload = Printable(Payload(denial));
      std::string problem;
      if (auto key = journal::EffectKey::Parse(denial.origin)) {
        auto recorded = journal.Append(journal::EntryKind::kEgressDenied, *key, payload);
        if (!recorded.ok()) problem = recorded.message();
      } else {
        auto recorded = journal.AppendOwnKey(journal::EntryKind::kEgressDenied, kOwnAgent, kOwnRun, payload);
        if (!recorded.ok()) problem = recorded.message();
      }
      if (!problem.empty()) {
        std::fprintf(stderr, "volent node: an egress denial of %s %s was not journaled: %s\n",
                     ForLog(denial.method).c_str(), ForLog(denial.url).c_str(), problem.c_str());
      }
    } catch (const std::exception& e) {
      // Allocation failure: the request is denied all the same.
      std::fprintf(stderr, "volent node: an egress denial was not journaled: %s\n", e.what());
    }
  };
}

}  // namespace volent::agent
