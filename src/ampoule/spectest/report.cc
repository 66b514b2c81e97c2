#include "ampoule/spectest/report.h"

namespace ampoule::spectest {

void FileReport::Add(const Verdict& v) {
  switch (v.kind) {
    case Verdict::Kind::kPass:
      ++passed;
      if (!v.message.empty()) notes.push_back(v);
      break;
    case Verdict::Kind::kFail:
      ++failed;
      failures.push_back(v);
      break;
    case Verdict::Kind::kSkip:
      ++skipped;
      ++skip_reasons[v.message];
      break;
  }
}

std::string FormatFileLine(const FileReport& r) {
  std::string line = r.name + ": " + std::to_string(r.passed) + " passed, " + std::to_string(r.failed) +
                     " failed, " + std::to_string(r.skipped) + " skipped";
  if (!r.error.empty()) line += " (" + r.error + ")";
  return line;
}

std::string FormatVerdictLine(const std::string& file, const Verdict& v) {
  return "  " + file + ":" + std::to_string(v.line) + ": " + CommandKindName(v.command) + ": " + v.message;
}

std::string FormatTotals(const Totals& t) {
  return std::to_string(t.passed) + " passed, " + std::to_string(t.failed) + " failed, " +
         std::to_string(t.skipped) + " skipped";
}

}  // namespace ampoule::spectest
