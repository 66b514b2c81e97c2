// Replay with a stand-in runner: what is compared, what a replay needs, and
// the REPLAY lines. The real run (run::RunProgram on a kernel) is exercised
// by tests/verify/verify_cli.sh when a kernel is available.
#include <gtest/gtest.h>

#include "ampoule/receipt/envelope.h"
#include "ampoule/verify/verify_testing.h"

namespace ampoule::verify {
namespace {

using testing::CommandOutput;
using testing::RunCommand;
using testing::Scene;

class ReplayTest : public ::testing::Test {
 protected:
  // A runner that "runs" by returning `replayed` (with new times), and
  // remembers the spec it was given.
  Runner Fake() {
    return [this](const run::RunSpec& spec) -> core::Result<run::ProgramRun> {
      ++runs;
      last_spec = spec;
      run::ProgramRun run;
      run.record = replayed;
      run.record.limits.timeout_seconds = spec.limits.timeout_seconds;
      run.record.started_at = "2030-01-01T00:00:00Z";
      run.record.finished_at = "2030-01-01T00:00:09Z";
      return run;
    };
  }
  std::vector<std::string> Args(const std::string& receipt, bool key = true) {
    std::vector<std::string> a = {"--replay", receipt, "--kernel", s.Path("kernel"), "--program",
                                  s.Path("prog.py"), "--input", "a.csv=" + s.Path("a.csv"),
                                  "--input", "b.txt=" + s.Path("b.txt")};
    if (key) a.insert(a.end(), {"--key", s.Path("key.pub")});
    return a;
  }
  CommandOutput Run(const std::vector<std::string>& args) { return RunCommand(args, Fake()); }

  Scene s;
  run::RunRecord replayed = s.record;
  run::RunSpec last_spec;
  int runs = 0;
};

TEST_F(ReplayTest, MatchingRunIsReplayOk) {
  CommandOutput r = Run(Args(s.SignedReceipt(s.record)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "REPLAY OK\n");
  EXPECT_EQ(runs, 1);
}

TEST_F(ReplayTest, TheSpecComesFromThePredicate) {
  s.record.seed = 99;
  s.record.program.name = "original_name.py";
  s.record.limits = {1234, 5678, 9, 4096};
  replayed = s.record;
  CommandOutput r = Run(Args(s.SignedReceipt(s.record)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(last_spec.kernel_path, s.Path("kernel"));
  EXPECT_EQ(last_spec.runtime, "python");
  EXPECT_EQ(last_spec.program_name, "original_name.py");
  EXPECT_EQ(std::string(last_spec.program.begin(), last_spec.program.end()), s.program);
  ASSERT_EQ(last_spec.inputs.size(), 2u);
  EXPECT_EQ(last_spec.inputs[0].name, "a.csv");
  EXPECT_EQ(std::string(last_spec.inputs[0].bytes.begin(), last_spec.inputs[0].bytes.end()), s.input_a);
  EXPECT_EQ(last_spec.inputs[1].name, "b.txt");
  EXPECT_TRUE(last_spec.stdin_bytes.empty());
  EXPECT_EQ(last_spec.seed, 99u);
  EXPECT_EQ(last_spec.limits.fuel, 1234u);
  EXPECT_EQ(last_spec.limits.memory_bytes, 5678u);
  EXPECT_EQ(last_spec.limits.timeout_seconds, 9);
  EXPECT_EQ(last_spec.limits.output_cap_bytes, 4096u);
  EXPECT_FALSE(last_spec.insecure_no_jail);
  // --timeout changes only the safety net, and is not a difference.
  std::vector<std::string> a = Args(s.SignedReceipt(s.record));
  a.insert(a.end(), {"--timeout", "120"});
  r = Run(a);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(last_spec.limits.timeout_seconds, 120);
}

TEST_F(ReplayTest, EveryDifferenceFails) {
  std::string receipt = s.SignedReceipt(s.record);
  struct Case {
    const char* reason;
    void (*edit)(run::RunRecord&);
  };
  const Case cases[] = {
      {"stdout differs", [](run::RunRecord& r) { r.stdout_digest.sha256 = testing::Sha("7\n"); }},
      {"stdout total_bytes differs", [](run::RunRecord& r) { r.stdout_digest.total_bytes += 1; }},
      {"stdout truncated differs", [](run::RunRecord& r) { r.stdout_digest.truncated = true; }},
      {"stderr differs", [](run::RunRecord& r) { r.stderr_digest.sha256 = testing::Sha("warn"); }},
      {"fuel_used differs", [](run::RunRecord& r) { r.result.fuel_used += 1; }},
      {"status differs", [](run::RunRecord& r) { r.result.status = 1; r.result.exit_code = 1; }},
      {"stop differs", [](run::RunRecord& r) { r.result.stop = run::Stop::kTrap; }},
      {"memory_cap_hit differs", [](run::RunRecord& r) { r.result.memory_cap_hit = true; }},
      {"terminated differs", [](run::RunRecord& r) { r.result.terminated = true; }},
      {"kernel differs", [](run::RunRecord& r) { r.kernel_sha256 = testing::Sha("k2"); }},
      {"cost_table_version differs", [](run::RunRecord& r) { r.cost_table_version = 2; }},
      {"run description differs", [](run::RunRecord& r) { r.seed = 8; }},
  };
  for (const Case& c : cases) {
    replayed = s.record;
    c.edit(replayed);
    CommandOutput r = Run(Args(receipt));
    EXPECT_EQ(r.exit_code, 1) << c.reason << "\n" << r.err;
    EXPECT_EQ(r.out, std::string("REPLAY FAILED: ") + c.reason + "\n");
  }
}

// The forger changes the output and re-signs with their own key. Without
// trusting anyone, replay still catches it.
TEST_F(ReplayTest, TamperedOutputFailsReplayEvenWhenResigned) {
  run::RunRecord forged = s.record;
  forged.stdout_digest = {testing::Sha("1000000\n"), 8, 8, false};
  std::string receipt = s.WriteReceipt(run::MakeReceipt(forged, s.other));
  CommandOutput r = Run(Args(receipt, /*key=*/false));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "REPLAY FAILED: stdout differs\n");
  EXPECT_NE(r.err.find("signature: not checked"), std::string::npos) << r.err;
  // With our key named, the signature already fails (and nothing runs).
  runs = 0;
  r = Run(Args(receipt));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.rfind("REPLAY FAILED: ", 0), 0u);
  EXPECT_EQ(runs, 0);
  // Altered after signing, no key: the claim is checked against the run.
  receipt::Envelope e = receipt::ParseEnvelope(run::MakeReceipt(s.record, s.key)).value();
  e.payload = receipt::SerializeStatement(run::StatementForRecord(forged));
  r = Run(Args(s.WriteReceipt(receipt::SerializeEnvelope(e)), false));
  EXPECT_EQ(r.out, "REPLAY FAILED: stdout differs\n");
}

TEST_F(ReplayTest, OutcomeLines) {
  s.record.result = {3, 3, run::Stop::kExit, 50, false, false, ""};
  replayed = s.record;
  CommandOutput r = Run(Args(s.SignedReceipt(s.record)));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.out, "REPLAY MATCHED, RUN FAILED\n");
  s.record.result = {run::kStatusOutOfFuel, 0, run::Stop::kFuel, s.record.limits.fuel, false, false, ""};
  replayed = s.record;
  r = Run(Args(s.SignedReceipt(s.record)));
  EXPECT_EQ(r.exit_code, 4) << "a fuel-exhausted run is replayable";
  EXPECT_EQ(r.out, "REPLAY MATCHED, RUN FAILED\n");
  s.record.result = {run::kStatusTerminated, 0, run::Stop::kTimeout, 0, true, false, ""};
  runs = 0;
  r = Run(Args(s.SignedReceipt(s.record)));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "REPLAY N/A\n");
  EXPECT_EQ(runs, 0) << "a terminated run is not re-run";
}

TEST_F(ReplayTest, WhatAReplayNeeds) {
  std::string receipt = s.SignedReceipt(s.record);
  std::vector<std::string> a = Args(receipt);
  a.erase(a.begin() + 6, a.begin() + 8);  // drop --input a.csv
  CommandOutput r = Run(a);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.Line().rfind("ERROR: ", 0), 0u) << r.out;
  EXPECT_EQ(runs, 0);
  // Non-empty stdin must be given.
  s.record.stdin_digest = {testing::Sha("in"), 2};
  replayed = s.record;
  receipt = s.SignedReceipt(s.record);
  r = Run(Args(receipt));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  testing::WriteFile(s.Path("in"), "in");
  a = Args(receipt);
  a.insert(a.end(), {"--stdin", s.Path("in")});
  r = Run(a);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::string(last_spec.stdin_bytes.begin(), last_spec.stdin_bytes.end()), "in");
}

TEST_F(ReplayTest, GivenFilesMustMatchBeforeRunning) {
  std::string receipt = s.SignedReceipt(s.record);
  testing::WriteFile(s.Path("wrong"), "7\n");
  for (size_t slot : {3u, 5u}) {  // --kernel, --program
    std::vector<std::string> a = Args(receipt);
    a[slot] = s.Path("wrong");
    CommandOutput r = Run(a);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.out, slot == 3 ? "REPLAY FAILED: kernel differs from the receipt\n"
                               : "REPLAY FAILED: program differs from the receipt\n");
  }
  std::vector<std::string> a = Args(receipt);
  a[7] = "a.csv=" + s.Path("wrong");
  EXPECT_EQ(Run(a).out, "REPLAY FAILED: input a.csv differs from the receipt\n");
  EXPECT_EQ(runs, 0);
}

TEST_F(ReplayTest, SizesAndErrors) {
  std::string receipt = s.SignedReceipt(s.record);
  std::string huge = s.Path("huge");
  testing::WriteFile(huge, "x");
  ASSERT_EQ(truncate(huge.c_str(), (off_t(64) << 20) + 1), 0);
  std::vector<std::string> a = Args(receipt);
  a[5] = huge;
  CommandOutput r = Run(a);
  EXPECT_EQ(r.exit_code, 6) << "code file over 64 MiB";
  EXPECT_EQ(r.Line().rfind("TOO LARGE: ", 0), 0u);
  a = Args(huge);
  EXPECT_EQ(Run(a).exit_code, 6) << "receipt over 64 MiB";
  testing::WriteFile(s.Path("weak.pub"), "ed25519 AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
  a = Args(receipt, false);
  a.insert(a.end(), {"--key", s.Path("weak.pub")});
  EXPECT_EQ(Run(a).exit_code, 2) << "weak --key";
  EXPECT_EQ(Run({"--replay", receipt, "--program", s.Path("prog.py")}).exit_code, 2) << "no kernel";
  // A runner that cannot start is an error, never a verdict.
  r = RunCommand(Args(receipt), [](const run::RunSpec&) -> core::Result<run::ProgramRun> {
    return core::Error{"jail unavailable"};
  });
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("jail unavailable"), std::string::npos);
  // Garbage receipt without a key: malformed, a failure.
  r = Run(Args(s.WriteReceipt("not json"), false));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.rfind("REPLAY FAILED: ", 0), 0u);
}

TEST_F(ReplayTest, LibraryCallersGetTheSameVerdict) {
  Options o;
  o.replay = true;
  o.receipt = s.SignedReceipt(s.record);
  o.kernel = s.Path("kernel");
  o.program = s.Path("prog.py");
  o.inputs = {{"a.csv", s.Path("a.csv")}, {"b.txt", s.Path("b.txt")}};
  o.keys = {s.Path("key.pub")};
  CheckOutcome outcome = RunCheck(o, Fake());
  EXPECT_TRUE(outcome.verdict.verified());
  EXPECT_EQ(outcome.verdict.line, "REPLAY OK");
  ASSERT_TRUE(outcome.record.has_value());
  EXPECT_EQ(outcome.record->result.fuel_used, s.record.result.fuel_used);
  EXPECT_FALSE(outcome.notes.empty());
  o.replay = false;
  outcome = RunCheck(o);
  EXPECT_EQ(outcome.verdict.line, "VERIFIED");
}

TEST(FirstDifference, IgnoresTimesAndTheSafetyNet) {
  Scene s;
  run::RunRecord a = s.record, b = s.record;
  b.started_at = "x";
  b.finished_at = "";
  b.limits.timeout_seconds = 1;
  std::string detail;
  EXPECT_EQ(FirstDifference(a, b, &detail), std::nullopt);
  b.result.trap = "unreachable";
  EXPECT_EQ(FirstDifference(a, b, &detail), "trap differs");
}

}  // namespace
}  // namespace ampoule::verify
