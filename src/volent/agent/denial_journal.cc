#include "volent/agent/denial_journal.h"
#include "core/json.h"

#include <charconv>
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

// `origin` as a step's key when it is one, written as EffectKey writes it
// ("a/r/7", not "a/r/07"); nothing otherwise.
std::optional<journal::EffectKey> StepKey(std::string_view origin) {
  const size_t first = origin.find('/');
  const size_t last = origin.rfind('/');
  if (first == std::string_view::npos || first == last) return std::nullopt;
  journal::EffectKey key{std::string(origin.substr(0, first)),
                         std::string(origin.substr(first + 1, last - first - 1)), 0};
  const std::string_view step = origin.substr(last + 1);
  auto [end, ec] = std::from_chars(step.data(), step.data() + step.size(), key.step);
  if (ec != std::errc() || end != step.data() + step.size()) return std::nullopt;
  if (!key.Check().ok() || key.ToString() != origin) return std::nullopt;
  return key;
}

nlohmann::json Payload(const egress::Denial& denial) {
  return {{"capability", denial.capability}, {"method", denial.method}, {"url", denial.url},
          {"reason", denial.reason},         {"hop", denial.hop},       {"origin", denial.origin}};
}

// Invalid UTF-8 cannot be journaled as JSON text; such bytes (a URL or a
// reason quoting what was refused) are replaced rather than the denial lost.
nlohmann::json Printable(const nlohmann::json& payload) {
  return nlohmann::json::parse(ampoule::DumpJson(payload));
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
      if (auto key = StepKey(denial.origin)) {
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
