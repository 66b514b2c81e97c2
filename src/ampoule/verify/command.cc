#include "ampoule/verify/command.h"

#include <string>

#include "ampoule/verify/default_runner.h"
#include "ampoule/verify/evidence.h"
#include "ampoule/verify/options.h"
#include "ampoule/verify/verdict.h"

namespace ampoule::verify {
namespace {

// Messages come from files and receipts: keep each on one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

int Finish(const Verdict& v, FILE* out) {
  fprintf(out, "%s\n", OneLine(v.line).c_str());
  fflush(out);
  return ExitCodeFor(v.conclusion);
}

}  // namespace

int ExitCodeFor(Conclusion conclusion) {
  switch (conclusion) {
    case Conclusion::kVerified: return kExitVerified;
    case Conclusion::kFailed: return kExitFailed;
    case Conclusion::kUnusable: return kExitUsage;
    case Conclusion::kNotReplayable: return kExitNotReplayable;
    case Conclusion::kRunFailed: return kExitRunFailed;
    case Conclusion::kIncomplete: return kExitIncomplete;
    case Conclusion::kTooLarge: return kExitTooLarge;
  }
  return kExitUsage;  // not reached: every conclusion is mapped above
}

CheckOutcome RunCheck(const Options& options, const Runner& runner) {
  const Snapshot files = ReadSnapshot(options);
  return CheckSnapshot(options, files, runner);
}

CheckOutcome CheckSnapshot(const Options& options, const Snapshot& files, const Runner& runner) {
  Evidence ev = Gather(options, files);
  if (options.replay) Replay(options, runner ? runner : DefaultRunner(), ev);
  return {Decide(options.replay ? Mode::kReplay : Mode::kVerify, ev.facts), ev.facts, std::move(ev.notes),
          std::move(ev.record)};
}

int RunVerifyCommand(std::span<const char* const> args, std::string_view command, FILE* out,
                     FILE* err, const Runner& runner) {
  const std::string name(command);
  core::Result<Options> options = ParseOptions(args);
  if (!options.ok()) {
    fprintf(err, "%s: %s\n\n%s", name.c_str(), options.message().c_str(), Usage(command).c_str());
    Facts facts;
    facts.usage = options.message();
    return Finish(Decide(Mode::kVerify, facts), out);
  }
  if (options->help) {
    fputs(Usage(command).c_str(), out);
    return 0;
  }
  CheckOutcome outcome = RunCheck(*options, runner);
  for (const std::string& note : outcome.notes) {
    fprintf(err, "%s: %s\n", name.c_str(), OneLine(note).c_str());
  }
  fflush(err);
  return Finish(outcome.verdict, out);
}

}  // namespace ampoule::verify
