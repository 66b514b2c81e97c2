#include "ampoule/verify/verdict.h"

namespace ampoule::verify {

void Note(std::optional<std::string>& slot, std::string reason) {
  if (!slot) slot = std::move(reason);
}

Verdict Decide(Mode mode, const Facts& f) {
  const bool replay = mode == Mode::kReplay;
  if (f.usage) return {Conclusion::kUnusable, "ERROR: " + *f.usage};
  if (f.too_large) return {Conclusion::kTooLarge, "TOO LARGE: " + *f.too_large};
  if (f.failed) return {Conclusion::kFailed, replay ? "REPLAY FAILED: " + *f.failed : "FAILED"};
  if (f.terminated) return {Conclusion::kNotReplayable, replay ? "REPLAY N/A" : "NOT REPLAYABLE"};
  if (replay && !f.replay_matched) {
    // Fail closed: nothing reported a problem, yet no replay matched.
    return {Conclusion::kFailed, "REPLAY FAILED: the replay did not run"};
  }
  if (f.run_failed) return {Conclusion::kRunFailed, replay ? "REPLAY MATCHED, RUN FAILED" : "RUN FAILED"};
  if (!replay && !f.kernel_pinned) return {Conclusion::kIncomplete, "INCOMPLETE"};
  return {Conclusion::kVerified, replay ? "REPLAY OK" : "VERIFIED"};
}

}  // namespace ampoule::verify
