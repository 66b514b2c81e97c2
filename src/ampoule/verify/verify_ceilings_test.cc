// The verifier's own ceilings on a replay: a receipt, signed or not, cannot
// make a replay run for ever or take all the memory, and the replay judges
// the bytes that were read once, whatever the files turn into meanwhile.
#include <gtest/gtest.h>

#include <cstdio>

#include "ampoule/verify/options.h"
#include "ampoule/verify/verify_testing.h"

namespace ampoule::verify {
namespace {

using testing::CommandOutput;
using testing::RunCommand;
using testing::Scene;

class CeilingTest : public ::testing::Test {
 protected:
  Runner Fake() {
    return [this](const run::RunSpec& spec) -> core::Result<run::ProgramRun> {
      ++runs;
      last_spec = spec;
      if (during) during();
      run::ProgramRun run;
      run.record = s.record;
      run.record.limits.timeout_seconds = spec.limits.timeout_seconds;
      run.record.limits.fuel = spec.limits.fuel;
      if (stop_on_fuel) {
        run.record.result.stop = run::Stop::kFuel;
        run.record.result.fuel_used = spec.limits.fuel;
      }
      return run;
    };
  }
  // A keyless replay: the path an auditor takes when the signer is not trusted.
  std::vector<std::string> Args(const std::string& receipt) {
    return {"--replay", receipt, "--kernel", s.Path("kernel"), "--program", s.Path("prog.py"),
            "--input", "a.csv=" + s.Path("a.csv"), "--input", "b.txt=" + s.Path("b.txt")};
  }
  CommandOutput Replay(const run::RunRecord& r, std::vector<std::string> extra = {}) {
    std::vector<std::string> a = Args(s.SignedReceipt(r));
    a.insert(a.end(), extra.begin(), extra.end());
    return RunCommand(a, Fake());
  }

  Scene s;
  run::RunSpec last_spec;
  int runs = 0;
  bool stop_on_fuel = false;
  std::function<void()> during;
};

TEST_F(CeilingTest, HugeFuelClaimedIsNotRun) {
  s.record.limits.fuel = UINT64_MAX;
  s.record.result.fuel_used = UINT64_MAX - 1;
  CommandOutput r = Replay(s.record);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.Line(), "REPLAY FAILED: fuel over the verifier's ceiling of 100000000000");
  EXPECT_NE(r.err.find("--max-fuel"), std::string::npos) << r.err;
  EXPECT_EQ(runs, 0);
}

TEST_F(CeilingTest, AHugeFuelLimitIsLoweredToTheCeilingWhenTheRunUsedLess) {
  s.record.limits.fuel = UINT64_MAX;
  CommandOutput r = Replay(s.record);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.Line(), "REPLAY OK");
  EXPECT_EQ(last_spec.limits.fuel, kDefaultMaxReplayFuel);
}

TEST_F(CeilingTest, AReplayThatRunsOutOfTheLoweredFuelFailsSayingSo) {
  // The receipt lies about the fuel used: the program really runs longer.
  s.record.limits.fuel = UINT64_MAX;
  stop_on_fuel = true;
  CommandOutput r = Replay(s.record, {"--max-fuel", "5000000000"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.Line(), "REPLAY FAILED: fuel over the verifier's ceiling of 5000000000");
  EXPECT_EQ(last_spec.limits.fuel, 5'000'000'000u);
}

TEST_F(CeilingTest, TheCeilingCanBeRaised) {
  s.record.limits.fuel = UINT64_MAX;
  s.record.result.fuel_used = 200'000'000'000;
  EXPECT_EQ(Replay(s.record).exit_code, 1);
  CommandOutput r = Replay(s.record, {"--max-fuel", "300000000000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(last_spec.limits.fuel, 300'000'000'000u);
}

TEST_F(CeilingTest, AHugeTimeoutIsLoweredToTheCeiling) {
  s.record.limits.timeout_seconds = 1e12;
  CommandOutput r = Replay(s.record);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(last_spec.limits.timeout_seconds, kDefaultMaxReplayTimeout);
  r = Replay(s.record, {"--max-timeout", "30"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(last_spec.limits.timeout_seconds, 30);
  // An explicit --timeout is the person's own choice.
  r = Replay(s.record, {"--timeout", "900"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(last_spec.limits.timeout_seconds, 900);
}

TEST_F(CeilingTest, HugeMemoryAndOutputCapsAreNotRun) {
  run::RunRecord r1 = s.record;
  r1.limits.memory_bytes = UINT64_MAX;
  CommandOutput r = Replay(r1);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.Line(), "REPLAY FAILED: memory cap over the verifier's ceiling of 4294967296");
  r = Replay(r1, {"--max-memory", "1048576"});
  EXPECT_EQ(r.Line(), "REPLAY FAILED: memory cap over the verifier's ceiling of 1048576");
  run::RunRecord r2 = s.record;
  r2.limits.output_cap_bytes = UINT64_MAX;
  r = Replay(r2);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.Line(), "REPLAY FAILED: output cap over the verifier's ceiling of 67108864");
  EXPECT_EQ(runs, 0);
}

TEST_F(CeilingTest, CeilingFlagsAreForReplayOnlyAndChecked) {
  std::vector<std::string> verify = s.FullVerify(s.SignedReceipt(s.record));
  verify.insert(verify.end(), {"--max-fuel", "5"});
  EXPECT_EQ(RunCommand(verify).exit_code, 2);
  for (const char* bad : {"0", "-1", "1e9", "99999999999999999999999", "12x"}) {
    std::vector<std::string> a = Args(s.SignedReceipt(s.record));
    a.insert(a.end(), {"--max-fuel", bad});
    CommandOutput r = RunCommand(a, Fake());
    EXPECT_EQ(r.exit_code, 2) << bad;
  }
}

TEST_F(CeilingTest, TheReplayRunsTheBytesThatWereReadNotWhatTheFilesBecame) {
  // Files renamed over during the replay: the replay was given, and the
  // verdict rests on, the bytes read before it started.
  during = [&] {
    testing::WriteFile(s.Path("prog.new"), "print('forged')\n");
    std::rename(s.Path("prog.new").c_str(), s.Path("prog.py").c_str());
  };
  CommandOutput r = Replay(s.record);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::string(last_spec.program.begin(), last_spec.program.end()), s.program);
}

}  // namespace
}  // namespace ampoule::verify
