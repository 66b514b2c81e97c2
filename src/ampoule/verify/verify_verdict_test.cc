// The precedence of docs/cli.md, over every combination of facts, in both modes.
#include <gtest/gtest.h>

#include <set>

#include "ampoule/verify/command.h"
#include "ampoule/verify/verdict.h"

namespace ampoule::verify {
namespace {

Facts FactsFor(unsigned bits) {
  Facts f;
  if (bits & 1) f.usage = "usage";
  if (bits & 2) f.too_large = "big.bin";
  if (bits & 4) f.failed = "why";
  f.terminated = bits & 8;
  f.run_failed = bits & 16;
  f.kernel_pinned = bits & 32;
  f.replay_matched = bits & 64;
  return f;
}

// The reference: the set of rows that apply, then the most serious of them
// in docs/cli.md's order 2 (and 6) > 1 > 3 > 4 > 5 > 0 (2 before 6, see verdict.h).
int Expected(Mode mode, const Facts& f) {
  std::set<int> apply;
  if (f.usage) apply.insert(2);
  if (f.too_large) apply.insert(6);
  if (f.failed) apply.insert(1);
  if (mode == Mode::kReplay && !f.terminated && !f.replay_matched) apply.insert(1);
  if (f.terminated) apply.insert(3);
  if (f.run_failed) apply.insert(4);
  if (mode == Mode::kVerify && !f.kernel_pinned) apply.insert(5);
  for (int code : {2, 6, 1, 3, 4, 5}) {
    if (apply.count(code)) return code;
  }
  return 0;
}

std::string ExpectedLine(Mode mode, int code) {
  bool replay = mode == Mode::kReplay;
  switch (code) {
    case 0: return replay ? "REPLAY OK" : "VERIFIED";
    case 1: return replay ? "REPLAY FAILED: " : "FAILED";
    case 2: return "ERROR: usage";
    case 3: return replay ? "REPLAY N/A" : "NOT REPLAYABLE";
    case 4: return replay ? "REPLAY MATCHED, RUN FAILED" : "RUN FAILED";
    case 5: return "INCOMPLETE";
    case 6: return "TOO LARGE: big.bin";
  }
  return "?";
}

TEST(Verdict, EveryCombinationFollowsThePrecedence) {
  int seen[7] = {};
  for (Mode mode : {Mode::kVerify, Mode::kReplay}) {
    for (unsigned bits = 0; bits < 128; ++bits) {
      Facts f = FactsFor(bits);
      Verdict v = Decide(mode, f);
      int want = Expected(mode, f);
      ASSERT_EQ(ExitCodeFor(v.conclusion), want) << "bits " << bits << " replay " << (mode == Mode::kReplay);
      std::string line = ExpectedLine(mode, want);
      if (want == 1 && mode == Mode::kReplay) {
        EXPECT_EQ(v.line.rfind(line, 0), 0u) << v.line;
        EXPECT_GT(v.line.size(), line.size()) << "a replay failure names its reason";
      } else {
        EXPECT_EQ(v.line, line) << "bits " << bits;
      }
      ++seen[want];
    }
  }
  for (int code = 0; code < 7; ++code) EXPECT_GT(seen[code], 0) << "exit " << code << " never produced";
}

TEST(Verdict, PassLinesOnlyOnExitZero) {
  for (Mode mode : {Mode::kVerify, Mode::kReplay}) {
    for (unsigned bits = 0; bits < 128; ++bits) {
      Verdict v = Decide(mode, FactsFor(bits));
      bool pass_line = v.line == "VERIFIED" || v.line == "REPLAY OK";
      EXPECT_EQ(pass_line, ExitCodeFor(v.conclusion) == 0) << v.line;
      EXPECT_EQ(v.line.find('\n'), std::string::npos);
    }
  }
}

TEST(Verdict, ReplayFailureCarriesItsReason) {
  Facts f;
  f.failed = "stdout differs";
  EXPECT_EQ(Decide(Mode::kReplay, f).line, "REPLAY FAILED: stdout differs");
  EXPECT_EQ(Decide(Mode::kVerify, f).line, "FAILED");
}

TEST(Verdict, ReplayNeverIncompleteAndNeverOkWithoutAMatch) {
  Facts f;  // nothing wrong, but nothing replayed either
  EXPECT_EQ(ExitCodeFor(Decide(Mode::kReplay, f).conclusion), kExitFailed);
  f.replay_matched = true;
  EXPECT_EQ(ExitCodeFor(Decide(Mode::kReplay, f).conclusion), kExitVerified);  // kernel_pinned not needed
  EXPECT_EQ(ExitCodeFor(Decide(Mode::kVerify, f).conclusion), kExitIncomplete);
}

TEST(Verdict, NoteKeepsTheFirstReason) {
  std::optional<std::string> slot;
  Note(slot, "first");
  Note(slot, "second");
  EXPECT_EQ(*slot, "first");
}

}  // namespace
}  // namespace ampoule::verify
