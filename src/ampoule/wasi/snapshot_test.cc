// Snapshots of a reactor's start-up (tests/wasi/reactor.c): a run from a
// snapshot is the straight run's ampoule_main, runs do not leak into each
// other, and bad snapshot bytes are errors.
#include "ampoule/wasi/snapshot.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "ampoule/wasi/snapshot_state.h"
#include "ampoule/wasi/snapshot_tiny_module.h"

namespace ampoule::wasi {
namespace {

using wasm::StopReason;

#ifdef AMPOULE_WASI_GUEST_DIR
constexpr const char* kGuestDir = AMPOULE_WASI_GUEST_DIR;
#else
constexpr const char* kGuestDir = nullptr;
#endif

std::shared_ptr<const wasm::CompiledModule> LoadGuest(const std::string& name) {
  std::ifstream in(std::string(kGuestDir) + "/" + name + ".wasm", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  core::Result<std::shared_ptr<const wasm::CompiledModule>> m = wasm::CompileModule(bytes);
  EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : m.message());
  return m.ok() ? *m : nullptr;
}

// Everything but the line with the random bytes.
std::string WithoutRandom(const std::string& out) {
  size_t at = out.find("random=");
  if (at == std::string::npos) return out;
  return out.substr(0, at) + out.substr(out.find('\n', at));
}

class SnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kGuestDir == nullptr)
      GTEST_SKIP() << "WASI guests were not built (clang-14 or wasi-libc missing)";
    reactor = LoadGuest("reactor");
    ASSERT_NE(reactor, nullptr);
    init = MakeRequest({"reactor"});
    run = MakeRequest({"reactor", "x"});
  }

  static RunRequest MakeRequest(std::vector<std::string> args) {
    RunRequest r;
    r.args = std::move(args);
    r.env = {"REACTOR_HEAP_MB=2"};
    r.fuel = 1'000'000'000;
    r.limits.max_memory_bytes = 64 << 20;
    EXPECT_TRUE(r.mailbox.AddPreopen("/input").ok());
    return r;
  }

  std::vector<uint8_t> Snapshot() {
    core::Result<std::vector<uint8_t>> s = MakeSnapshot(reactor, init);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.message());
    return s.ok() ? std::move(*s) : std::vector<uint8_t>{};
  }

  RunResult RunFrom(std::span<const uint8_t> snapshot) {
    core::Result<RunResult> r = RunFromSnapshot(reactor, snapshot, run);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.message());
    return r.ok() ? std::move(*r) : RunResult{};
  }

  std::string SnapshotError(const RunRequest& request) {
    core::Result<std::vector<uint8_t>> s = MakeSnapshot(reactor, request);
    EXPECT_FALSE(s.ok());
    return s.ok() ? "" : s.message();
  }

  std::string RunError(std::span<const uint8_t> snapshot) {
    core::Result<RunResult> r = RunFromSnapshot(reactor, snapshot, run);
    EXPECT_FALSE(r.ok());
    return r.ok() ? "" : r.message();
  }

  std::shared_ptr<const wasm::CompiledModule> reactor;
  RunRequest init;
  RunRequest run;
};

TEST_F(SnapshotTest, RunFromSnapshotIsTheStraightRunsMain) {
  core::Result<RunResult> straight = RunWasiCommand(reactor, run);
  ASSERT_TRUE(straight.ok()) << straight.message();
  std::vector<uint8_t> snapshot = Snapshot();
  RunResult r = RunFrom(snapshot);
  EXPECT_EQ(r.stop, StopReason::kReturned) << DescribeStop(r) << r.stderr_data;
  // Byte for byte, clock readings included: the clock continues from start-up.
  EXPECT_EQ(r.stdout_data, straight->stdout_data);
  EXPECT_EQ(r.stderr_data, straight->stderr_data);
  EXPECT_EQ(r.stdout_data.substr(0, r.stdout_data.find("argv")),
            "counter=42 greeting=hello from init op(7)=14 heap=2097152 sum=32\n");
  // The run's fuel is ampoule_main's share of the straight run's.
  core::Result<SnapshotImage> image = ParseSnapshot(snapshot);
  ASSERT_TRUE(image.ok()) << image.message();
  EXPECT_GT(image->fuel, 0u);
  EXPECT_EQ(image->slept_ns, 1'000'000u);
  EXPECT_EQ(image->fuel + r.fuel_used, straight->fuel_used);
}

TEST_F(SnapshotTest, SameModuleAndRequestSameBytes) {
  std::vector<uint8_t> a = Snapshot();
  reactor = LoadGuest("reactor");  // compiled again
  std::vector<uint8_t> b = Snapshot();
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
}

TEST_F(SnapshotTest, RunsDoNotLeakIntoEachOther) {
  std::vector<uint8_t> snapshot = Snapshot();
  RunResult first = RunFrom(snapshot);
  RunResult second = RunFrom(snapshot);
  // ampoule_main changes the counter, the heap string, the heap block and a
  // function pointer; the second run sees none of it.
  EXPECT_EQ(first.stdout_data, second.stdout_data);
  EXPECT_EQ(first.fuel_used, second.fuel_used);
  EXPECT_NE(second.stdout_data.find("counter=42 greeting=hello from init op(7)=14"),
            std::string::npos);
}

TEST_F(SnapshotTest, TheRunsSeedStartsAFreshRandomStream) {
  std::vector<uint8_t> snapshot = Snapshot();
  RunResult zero = RunFrom(snapshot);
  run.seed = 1;
  RunResult one = RunFrom(snapshot);
  EXPECT_NE(zero.stdout_data, one.stdout_data);
  EXPECT_EQ(WithoutRandom(zero.stdout_data), WithoutRandom(one.stdout_data));
  EXPECT_EQ(zero.fuel_used, one.fuel_used);
  // Seed 0's stream from its first byte, as a straight run's main sees it.
  EXPECT_NE(zero.stdout_data.find("random=20735239df301900"), std::string::npos);
}

TEST_F(SnapshotTest, ArgsStdinAndExitStatusComeFromTheRun) {
  std::vector<uint8_t> snapshot = Snapshot();
  run.args = {"reactor", "exit", "9"};
  RunResult r = RunFrom(snapshot);
  EXPECT_EQ(r.stop, StopReason::kExit);
  EXPECT_EQ(r.exit_code, 9);
  EXPECT_NE(r.stdout_data.find("argv[1]=exit\nargv[2]=9\n"), std::string::npos);
  run.args = {"reactor", "proc_exit", "4"};
  r = RunFrom(snapshot);
  EXPECT_EQ(r.stop, StopReason::kExit);
  EXPECT_EQ(r.exit_code, 4);
}

TEST_F(SnapshotTest, FuelBudgetAppliesToMainOnly) {
  std::vector<uint8_t> snapshot = Snapshot();
  RunResult full = RunFrom(snapshot);
  run.fuel = full.fuel_used;
  EXPECT_EQ(RunFrom(snapshot).stop, StopReason::kReturned);
  run.fuel = full.fuel_used - 1;
  RunResult r = RunFrom(snapshot);
  EXPECT_EQ(r.stop, StopReason::kOutOfFuel);
}

TEST_F(SnapshotTest, LargeMostlyZeroMemoryStaysSmallAndRestoresQuickly) {
  init.env = run.env = {"REACTOR_HEAP_MB=20"};
  std::vector<uint8_t> snapshot = Snapshot();
  core::Result<SnapshotImage> image = ParseSnapshot(snapshot);
  ASSERT_TRUE(image.ok()) << image.message();
  ASSERT_EQ(image->memories.size(), 1u);
  EXPECT_GT(uint64_t(image->memories[0].pages) * wasm::kPageSize, uint64_t(20) << 20);
  EXPECT_LT(snapshot.size(), size_t(1) << 20);
  RunResult r = RunFrom(snapshot);
  EXPECT_NE(r.stdout_data.find("heap=20971520 sum=3200"), std::string::npos) << r.stdout_data;

  // Not an assertion (tests do not time things): how long parse + restore
  // of this ~21 MB memory takes, beside instantiation alone.
  using Clock = std::chrono::steady_clock;
  double best_instantiate = 1e9, best_restore = 1e9;
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    core::Result<std::unique_ptr<RunSession>> s = RunSession::Start(reactor, run);
    ASSERT_TRUE(s.ok());
    auto t1 = Clock::now();
    core::Result<SnapshotImage> parsed = ParseSnapshot(snapshot);
    ASSERT_TRUE(parsed.ok());
    ASSERT_TRUE(RestoreInstance(*parsed, *(*s)->instance()).ok());
    auto t2 = Clock::now();
    best_instantiate =
        std::min(best_instantiate, std::chrono::duration<double, std::milli>(t1 - t0).count());
    best_restore =
        std::min(best_restore, std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  printf("snapshot of a %u-page memory: %zu bytes; instantiate %.2f ms, parse+restore %.2f ms\n",
         image->memories[0].pages, snapshot.size(), best_instantiate, best_restore);
}

TEST_F(SnapshotTest, StartUpThatFailsIsRefused) {
  init.env = {"REACTOR_HEAP_MB=2", "REACTOR_INIT_STATUS=3"};
  std::string e = SnapshotError(init);
  EXPECT_NE(e.find("ampoule_init (exit 3)"), std::string::npos) << e;
  init.env = {"REACTOR_HEAP_MB=100"};  // calloc fails under the cap: status 9
  init.limits.max_memory_bytes = 8 << 20;
  e = SnapshotError(init);
  EXPECT_NE(e.find("ampoule_init (exit 9)"), std::string::npos) << e;
  init = MakeRequest({"reactor"});
  init.fuel = 1000;
  e = SnapshotError(init);
  EXPECT_NE(e.find("out of fuel"), std::string::npos) << e;
}

TEST_F(SnapshotTest, StartUpThatLeavesAFileOpenIsRefused) {
  init.env = {"REACTOR_HEAP_MB=2", "REACTOR_KEEP_FD=1"};
  std::string e = SnapshotError(init);
  EXPECT_NE(e.find("left descriptor 4 open"), std::string::npos) << e;
}

TEST_F(SnapshotTest, CommandsAreNotReactors) {
  reactor = LoadGuest("args");
  std::string e = SnapshotError(init);
  EXPECT_NE(e.find("no \"ampoule_main\""), std::string::npos) << e;
}

TEST_F(SnapshotTest, TheRunMustSeeWhatStartUpSaw) {
  std::vector<uint8_t> snapshot = Snapshot();
  run.env = {"REACTOR_HEAP_MB=3"};
  std::string e = RunError(snapshot);
  EXPECT_NE(e.find("environment [\"REACTOR_HEAP_MB=3\"] differs"), std::string::npos) << e;

  run = MakeRequest({"reactor"});
  ASSERT_TRUE(run.mailbox.AddPreopen("/program").ok());
  e = RunError(snapshot);
  EXPECT_NE(e.find("preopened directories [\"/input\", \"/program\"] differ from the ones the "
                   "snapshot was made with [\"/input\"]"),
            std::string::npos)
      << e;

  run = MakeRequest({"reactor"});
  run.limits.max_memory_bytes = 1 << 20;
  e = RunError(snapshot);
  EXPECT_NE(e.find("memory limit below the runtime's start-up size of 2"), std::string::npos) << e;
}

TEST_F(SnapshotTest, SnapshotOfAnotherModuleIsRefused) {
  std::vector<uint8_t> snapshot = Snapshot();
  core::Result<RunResult> r = RunFromSnapshot(LoadGuest("args"), snapshot, run);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("made for another module"), std::string::npos) << r.message();
  Sha256Digest wrong{};
  r = RunFromSnapshot(reactor, wrong, snapshot, run);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("made for another module"), std::string::npos) << r.message();
  r = RunFromSnapshot(reactor, ModuleSha256(*reactor), snapshot, run);
  EXPECT_TRUE(r.ok()) << r.message();
}

TEST_F(SnapshotTest, WrongMagicOrVersionIsRefused) {
  std::vector<uint8_t> snapshot = Snapshot();
  std::vector<uint8_t> bad = snapshot;
  bad[0] = 'X';
  EXPECT_NE(RunError(bad).find("not a snapshot"), std::string::npos);
  bad = snapshot;
  bad[8] = 2;
  EXPECT_NE(RunError(bad).find("format version 2"), std::string::npos);
  EXPECT_NE(RunError({}).find("not a snapshot"), std::string::npos);
}

TEST_F(SnapshotTest, EveryTruncationIsAnError) {
  std::vector<uint8_t> snapshot = Snapshot();
  // Every length in the header and tail, a sample of the memory in between.
  for (size_t n = 0; n < snapshot.size(); n += (n < 300 || n + 300 > snapshot.size()) ? 1 : 997) {
    core::Result<SnapshotImage> r = ParseSnapshot(std::span(snapshot).first(n));
    EXPECT_FALSE(r.ok()) << n;
  }
  std::vector<uint8_t> longer = snapshot;
  longer.push_back(0);
  EXPECT_NE(RunError(longer).find("unexpected bytes after the end"), std::string::npos);
}

TEST_F(SnapshotTest, CorruptBytesGiveErrorsOrBoundedRuns) {
  std::vector<uint8_t> snapshot = Snapshot();
  run.fuel = 50'000'000;  // a corrupted heap may send the guest anywhere
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  int errors = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> bad = snapshot;
    // Mostly the structure (header, tail), sometimes the memory.
    size_t pos = i % 3 == 0 ? next() % bad.size()
                 : i % 3 == 1 ? next() % std::min<size_t>(bad.size(), 200)
                              : bad.size() - 1 - next() % std::min<size_t>(bad.size(), 2000);
    bad[pos] ^= uint8_t(1 + next() % 255);
    core::Result<RunResult> r = RunFromSnapshot(reactor, bad, run);
    errors += r.ok() ? 0 : 1;
  }
  EXPECT_GT(errors, 0);
}

TEST_F(SnapshotTest, ImageSerialisesBackToTheSameBytes) {
  std::vector<uint8_t> snapshot = Snapshot();
  core::Result<SnapshotImage> image = ParseSnapshot(snapshot);
  ASSERT_TRUE(image.ok()) << image.message();
  EXPECT_EQ(SerializeSnapshot(*image), snapshot);
  EXPECT_EQ(image->env, init.env);
  EXPECT_EQ(image->preopens, std::vector<std::string>{"/input"});
  EXPECT_EQ(image->module_sha256, ModuleSha256(*reactor));
}

// Globals (i32 and funcref), a grown memory, dropped segments: the state
// the C reactor does not reach.
TEST(SnapshotTinyReactorTest, EveryKindOfStateIsRestored) {
  core::Result<std::shared_ptr<const wasm::CompiledModule>> module =
      wasm::CompileModule(kSnapshotTinyReactor);
  ASSERT_TRUE(module.ok()) << module.message();
  RunRequest request;
  request.fuel = 1'000'000;
  core::Result<RunResult> straight = RunWasiCommand(*module, request);
  ASSERT_TRUE(straight.ok()) << straight.message();
  EXPECT_EQ(straight->exit_code, 7) << DescribeStop(*straight);

  core::Result<std::vector<uint8_t>> snapshot = MakeSnapshot(*module, request);
  ASSERT_TRUE(snapshot.ok()) << snapshot.message();
  core::Result<SnapshotImage> image = ParseSnapshot(*snapshot);
  ASSERT_TRUE(image.ok()) << image.message();
  EXPECT_EQ(image->memories[0].pages, 2u);
  ASSERT_EQ(image->globals.size(), 2u);
  EXPECT_EQ(image->globals[0].bits, 8u);
  EXPECT_EQ(image->globals[1].bits, 1u);  // function 0 ($seven), as index + 1
  EXPECT_EQ(image->tables, (std::vector<std::vector<uint32_t>>{{2, 0}}));  // $main, null
  EXPECT_EQ(image->elem_dropped, (std::vector<uint8_t>{1, 1}));  // active, and elem.drop
  EXPECT_EQ(image->data_dropped, (std::vector<uint8_t>{1}));

  for (int i = 0; i < 2; ++i) {  // the second run sees none of the first's changes
    core::Result<RunResult> r = RunFromSnapshot(*module, *snapshot, request);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->stop, StopReason::kExit);
    EXPECT_EQ(r->exit_code, 7) << DescribeStop(*r);
    EXPECT_EQ(image->fuel + r->fuel_used, straight->fuel_used);
  }
}

}  // namespace
}  // namespace ampoule::wasi
