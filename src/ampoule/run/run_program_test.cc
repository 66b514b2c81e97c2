// RunProgram end to end: a real kernel, the jailed engine, the record.
// Needs the kernel the test phase packs (build/share/ampoule/ampoule.kernel,
// or $AMPOULE_KERNEL) and a machine that can make a jail; without either the
// tests skip and say why.
#include "ampoule/run/run_program.h"
#include "core/hex.h"
#include "core/sha256.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "ampoule/kernel/default_path.h"
#include "ampoule/sandbox/jail.h"

namespace ampoule::run {
namespace {

class RunProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core::Result<std::string> path = kernel::DefaultKernelPath();
    if (!path.ok() || access(path->c_str(), R_OK) != 0) {
      GTEST_SKIP() << "no kernel at " << (path.ok() ? *path : path.message())
                   << " (scripts/test.sh packs one; or set AMPOULE_KERNEL)";
    }
    kernel_ = *path;
    core::Status jail = CheckJailSupported();
    if (!jail.ok()) GTEST_SKIP() << "no jail on this machine: " << jail.message();
  }

  RunSpec Spec(std::string runtime, std::string name, std::string source) {
    RunSpec spec;
    spec.kernel_path = kernel_;
    spec.runtime = std::move(runtime);
    spec.program_name = std::move(name);
    spec.program.assign(source.begin(), source.end());
    return spec;
  }

  std::string kernel_;
};

TEST_F(RunProgramTest, PythonRunRecordsWhatRan) {
  RunSpec spec = Spec("python", "p.py",
                      "import sys\nprint(open('/input/in.txt').read().upper())\n"
                      "print(sys.stdin.read(), file=sys.stderr)\n");
  spec.inputs.push_back({"in.txt", {'h', 'i'}});
  spec.stdin_bytes = {'s', 'i'};
  std::string streamed;
  spec.on_stdout = [&](std::string_view b) { streamed += b; };
  core::Result<ProgramRun> run = RunProgram(spec);
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(run->stdout_data, "HI\n");
  EXPECT_EQ(streamed, "HI\n");
  EXPECT_EQ(run->stderr_data, "si\n");
  const RunRecord& r = run->record;
  EXPECT_EQ(r.result.status, 0);
  EXPECT_EQ(r.result.stop, Stop::kExit);
  EXPECT_GT(r.result.fuel_used, 0u);
  EXPECT_EQ(r.stdout_digest.sha256, core::Sha256Hex("HI\n"));
  EXPECT_EQ(r.program.sha256, core::Sha256Hex(std::string(spec.program.begin(), spec.program.end())));
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].sha256, core::Sha256Hex("hi"));
  EXPECT_EQ(r.stdin_digest.sha256, core::Sha256Hex("si"));
  EXPECT_TRUE(core::IsLowerHex(r.kernel_sha256, 32));
}

TEST_F(RunProgramTest, SameSpecSameRecordAndSeedChangesRandomOnly) {
  RunSpec spec = Spec("python", "r.py", "import random\nprint(random.random())\n");
  core::Result<ProgramRun> a = RunProgram(spec), b = RunProgram(spec);
  spec.seed = 1;
  core::Result<ProgramRun> c = RunProgram(spec);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->stdout_data, b->stdout_data);
  EXPECT_EQ(a->record.result.fuel_used, b->record.result.fuel_used);
  EXPECT_NE(a->stdout_data, c->stdout_data);
}

TEST_F(RunProgramTest, OutcomesMapToStatuses) {
  RunSpec exit3 = Spec("python", "e.py", "raise SystemExit(3)\n");
  core::Result<ProgramRun> r = RunProgram(exit3);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->record.result.status, 3);

  RunSpec loop = Spec("python", "l.py", "while True: pass\n");
  loop.limits.fuel = 50'000'000;
  r = RunProgram(loop);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->record.result.stop, Stop::kFuel);
  EXPECT_EQ(r->record.result.status, kStatusOutOfFuel);
  // Stops at the first charge that would pass the budget.
  EXPECT_LE(r->record.result.fuel_used, 50'000'000u);
  EXPECT_GT(r->record.result.fuel_used, 49'000'000u);

  RunSpec js_error = Spec("js", "t.js", "throw new Error('boom')");
  r = RunProgram(js_error);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->record.result.status, 1);
  EXPECT_NE(r->stderr_data.find("boom"), std::string::npos) << r->stderr_data;

  RunSpec forever = Spec("python", "f.py", "while True: pass\n");
  forever.limits.fuel = UINT64_MAX;
  forever.limits.timeout_seconds = 0.3;
  r = RunProgram(forever);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(r->record.result.terminated);
  EXPECT_EQ(r->record.result.stop, Stop::kTimeout);
  EXPECT_EQ(r->record.result.status, kStatusTerminated);
}

TEST_F(RunProgramTest, OutputFloodIsCappedAndRecorded) {
  RunSpec spec = Spec("python", "f.py", "import sys\nsys.stdout.write('x' * 100000)\n");
  spec.limits.output_cap_bytes = 1000;
  core::Result<ProgramRun> r = RunProgram(spec);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->stdout_data.size(), 1000u);
  EXPECT_TRUE(r->record.stdout_digest.truncated);
  EXPECT_EQ(r->record.stdout_digest.total_bytes, 100000u);
  EXPECT_EQ(r->record.result.status, 0);
}

// The record says what the host did: the jail, or none with
// insecure_no_jail (the receipt of an unjailed run must not pass for a
// jailed one). A raw module, so that any kernel's engine runs it.
TEST_F(RunProgramTest, TheRecordSaysWhetherTheRunWasJailed) {
  const std::string module("\0asm\1\0\0\0"                          // header
                           "\1\4\1\x60\0\0"                         // type: () -> ()
                           "\3\2\1\0"                                 // func 0 of that type
                           "\7\x0a\1\6_start\0\0"                   // export "_start"
                           "\x0a\4\1\2\0\x0b",                      // an empty body
                           36);
  for (bool insecure : {false, true}) {
    RunSpec spec = Spec("wasm", "nothing.wasm", module);
    spec.insecure_no_jail = insecure;
    core::Result<ProgramRun> run = RunProgram(spec);
    ASSERT_TRUE(run.ok()) << run.message();
    EXPECT_EQ(run->record.result.status, 0);
    EXPECT_EQ(run->record.isolation, insecure ? Isolation::kNone : Isolation::kJail);
    EXPECT_EQ(RecordToJson(run->record)["isolation"], insecure ? "none" : "jail");
  }
}

TEST_F(RunProgramTest, BadRequestsAreErrorsNotRuns) {
  RunSpec spec = Spec("python", "p.py", "print(1)\n");
  spec.inputs.push_back({"../etc/passwd", {}});
  EXPECT_FALSE(RunProgram(spec).ok());
  spec.inputs = {{"a", {}}, {"a", {}}};
  EXPECT_FALSE(RunProgram(spec).ok());
  RunSpec wasm = Spec("wasm", "m.wasm", "not wasm");
  core::Result<ProgramRun> r = RunProgram(wasm);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("not a valid WebAssembly module"), std::string::npos) << r.message();
  RunSpec no_kernel = Spec("python", "p.py", "print(1)\n");
  no_kernel.kernel_path = "/nonexistent/kernel";
  EXPECT_FALSE(RunProgram(no_kernel).ok());
}

TEST(RuntimeForProgram, ByExtension) {
  EXPECT_EQ(*RuntimeForProgram("a.py"), "python");
  EXPECT_EQ(*RuntimeForProgram("a.js"), "js");
  EXPECT_EQ(*RuntimeForProgram("a.mjs"), "js");
  EXPECT_EQ(*RuntimeForProgram("a.wasm"), "wasm");
  core::Result<std::string> r = RuntimeForProgram("a.rb");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("--lang"), std::string::npos);
  EXPECT_FALSE(RuntimeForProgram(".py").ok());
}

}  // namespace
}  // namespace ampoule::run
