// Whole runs: the C programs in tests/wasi, compiled to wasm32-wasi at build
// time, run through the engine and the WASI host.
#include "ampoule/wasi/wasi_run.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

namespace ampoule::wasi {
namespace {

using wasm::StopReason;

#ifdef AMPOULE_WASI_GUEST_DIR
constexpr const char* kGuestDir = AMPOULE_WASI_GUEST_DIR;
#else
constexpr const char* kGuestDir = nullptr;
#endif

std::vector<uint8_t> Bytes(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::vector<uint8_t> LoadGuest(const std::string& name) {
  std::ifstream in(std::string(kGuestDir) + "/" + name + ".wasm", std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The same tree as tests/wasi/input, built in memory.
void AddInputTree(Mailbox& box) {
  ASSERT_TRUE(box.AddPreopen("/input").ok());
  ASSERT_TRUE(box.AddFile("/input", "hello.txt", Bytes("hello, world\nsecond line\n")).ok());
  ASSERT_TRUE(box.AddFile("/input", "nested/deep/data.bin", Bytes("ABCDEFGH")).ok());
  ASSERT_TRUE(box.AddFile("/input", "nested/z.txt", Bytes("z")).ok());
}

class WasiRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kGuestDir == nullptr)
      GTEST_SKIP() << "WASI guests were not built (clang-14 or wasi-libc missing)";
    request.fuel = 1'000'000'000;
    request.limits.max_memory_bytes = 64 << 20;
  }

  RunResult Run(const std::string& guest, std::vector<std::string> args = {}) {
    std::vector<uint8_t> wasm = LoadGuest(guest);
    EXPECT_FALSE(wasm.empty()) << guest;
    request.args = {guest + ".wasm"};
    request.args.insert(request.args.end(), args.begin(), args.end());
    core::Result<RunResult> r = RunWasiCommand(wasm, request);
    EXPECT_TRUE(r.ok()) << guest << ": " << (r.ok() ? "" : r.message());
    return r.ok() ? std::move(*r) : RunResult{};
  }

  RunRequest request;
};

TEST_F(WasiRunTest, Args) {
  RunResult r = Run("args", {"one", "two words", ""});
  EXPECT_EQ(r.stop, StopReason::kReturned);
  EXPECT_EQ(r.stdout_data, "argc=4\nargv[0]=args.wasm\nargv[1]=one\nargv[2]=two words\nargv[3]=\n");
  EXPECT_GT(r.fuel_used, 0u);
}

TEST_F(WasiRunTest, Environment) {
  request.env = {"GREETING=hi", "EMPTY="};
  RunResult r = Run("env");
  EXPECT_EQ(r.stdout_data, "env GREETING=hi\nenv EMPTY=\nGREETING=hi\n");
}

TEST_F(WasiRunTest, ReadsFilesFromTheMailbox) {
  AddInputTree(request.mailbox);
  RunResult r = Run("files");
  EXPECT_EQ(r.stop, StopReason::kReturned);
  EXPECT_EQ(r.stdout_data,
            "line: hello, world\n"
            "line: second line\n"
            "data.bin size=8 regular=1\n"
            "last 4 bytes: EFGH\n"
            "first 3 bytes: ABC\n"
            "position after pread: 8\n"
            "nested is a directory: 1\n"
            "missing: not opened errno=ENOENT\n");
}

TEST_F(WasiRunTest, ListsDirectoriesInSortedOrder) {
  AddInputTree(request.mailbox);
  RunResult r = Run("dirs");
  EXPECT_EQ(r.stdout_data, "/input:\n  hello.txt\n  nested/\n/input/nested:\n  deep/\n  z.txt\n");
}

TEST_F(WasiRunTest, ReadOnlyPreopensCannotBeChanged) {
  ASSERT_TRUE(request.mailbox.AddPreopen("/input", /*read_only=*/true).ok());
  ASSERT_TRUE(request.mailbox.AddFile("/input", "hello.txt", Bytes("hello\n")).ok());
  ASSERT_TRUE(request.mailbox.AddDirectory("/input", "nested/deep").ok());
  RunResult r = Run("readonly");
  EXPECT_EQ(r.stop, StopReason::kReturned);
  EXPECT_EQ(r.stdout_data,
            "create file: EROFS\n"
            "open for writing: EROFS\n"
            "open for append: EROFS\n"
            "truncate on open: EROFS\n"
            "mkdir: EROFS\n"
            "mkdir existing: EEXIST\n"
            "unlink: EROFS\n"
            "rmdir: EROFS\n"
            "rename: EROFS\n"
            "symlink: EROFS\n"
            "escape with ..: EPERM\n"
            "read-only open: OK\n"
            "write to read-only fd: EBADF\n"
            "ftruncate: EBADF\n"
            "read still works: OK\n");
}

// The same program and inputs give the same files, output and fuel; the
// mailbox is never changed. (The expected output is Node's on a real
// directory: tests/wasi/node_crosscheck.cmake.)
TEST_F(WasiRunTest, ProgramsThatWriteFilesAreDeterministic) {
  AddInputTree(request.mailbox);
  RunResult first = Run("fs_write");
  RunResult second = Run("fs_write");
  EXPECT_EQ(first.stop, StopReason::kReturned) << first.stderr_data;
  EXPECT_EQ(first.stdout_data, second.stdout_data);
  EXPECT_EQ(first.fuel_used, second.fuel_used);
  EXPECT_NE(first.stdout_data.find("tree:\n  empty/\n  folder -> moved\n  hello.txt 9\n"),
            std::string::npos)
      << first.stdout_data;
  EXPECT_EQ(first.stdout_data.find(": other"), std::string::npos) << first.stdout_data;
  const MailboxNode& hello = *request.mailbox.preopens()[0].root->entries.at("hello.txt");
  EXPECT_EQ(std::string(hello.contents.begin(), hello.contents.end()),
            "hello, world\nsecond line\n");
}

TEST_F(WasiRunTest, AllocateTimesRenumberAndAListingThatOutlivesChanges) {
  AddInputTree(request.mailbox);
  RunResult r = Run("fs_meta");
  EXPECT_EQ(r.stop, StopReason::kReturned) << r.stderr_data;
  EXPECT_EQ(r.stdout_data,
            "fallocate: OK\n"
            "size after fallocate: 100\n"
            "fallocate on a read-only descriptor: EBADF\n"
            "utimensat: OK\n"
            "atime 1000.5 mtime 2000.7\n"
            "mtime set to now: OK\n"
            "atime kept: 1, mtime moved past 2024: 1\n"
            "renumber: OK\n"
            "read through the new number: renumbered\n"
            "the old number is closed: EBADF\n"
            // a and b were read; then d went (not listed), e came (listed last).
            "listing: a b c e\n");
}

TEST_F(WasiRunTest, FilesystemCapsAndEscapesAreErrnos) {
  AddInputTree(request.mailbox);  // 3 files, 3 folders, 34 bytes
  request.fs_limits.max_bytes = 34 + 10 * 4096 + 100;
  request.fs_limits.max_nodes = 6 + 50;
  request.fs_limits.max_depth = 8;
  RunResult r = Run("fs_limits");
  EXPECT_EQ(r.stop, StopReason::kReturned) << r.stderr_data;
  // 6 input nodes + 3 links and folders (the absolute link is never made) +
  // big2 = 10 of 56 nodes, so 46 more files.
  EXPECT_EQ(r.stdout_data,
            "absolute link: EPERM\n"
            "climbing link: EPERM\n"
            "climbing folder link: EPERM\n"
            "wrote 40960 bytes, then ENOSPC\n"
            "ftruncate past the cap: ENOSPC\n"
            "after unlink, writing again: OK\n"
            "created 46 files, then EDQUOT\n"
            "nested 8 folders, then ENAMETOOLONG\n");
}

TEST_F(WasiRunTest, SocketsAreNotThere) {
  RunResult r = Run("socket");
  EXPECT_EQ(r.stdout_data,
            "send on stdout: -1 ENOTSOCK\n"
            "recv on stdin: -1 ENOTSOCK\n"
            "shutdown on stderr: -1 ENOTSOCK\n"
            "shutdown on fd 99: -1 EBADF\n");
}

TEST_F(WasiRunTest, Stdin) {
  request.stdin_bytes = Bytes("abc\ndef\nlast");
  RunResult r = Run("stdin");
  EXPECT_EQ(r.stdout_data, "ABC\nDEF\nLASTbytes=12 lines=2\n");
}

TEST_F(WasiRunTest, ClocksAreVirtual) {
  RunResult r = Run("clocks");
  EXPECT_EQ(r.stdout_data,
            "monotonic non-decreasing: 1\n"
            "sleep advanced at least 5ms: 1\n"
            "realtime seconds: 1704067200\n"
            "resolution ns: 1\n"
            "time(): 1704067200\n");
  request.epoch_ns = uint64_t(2'000'000'000) * 1'000'000'000;
  r = Run("clocks");
  EXPECT_NE(r.stdout_data.find("realtime seconds: 2000000000\n"), std::string::npos)
      << r.stdout_data;
}

TEST_F(WasiRunTest, ExitCodes) {
  RunResult r = Run("exitcode");
  EXPECT_EQ(r.stop, StopReason::kReturned);
  EXPECT_EQ(r.exit_code, 0);
  r = Run("exitcode", {"42"});
  EXPECT_EQ(r.stop, StopReason::kExit);
  EXPECT_EQ(r.exit_code, 42);
  EXPECT_EQ(r.stderr_data, "exiting with 42\n");
  EXPECT_EQ(DescribeStop(r), "exit 42");
  r = Run("exitcode", {"0"});
  EXPECT_EQ(r.stop, StopReason::kExit);
  EXPECT_EQ(r.exit_code, 0);
}

TEST_F(WasiRunTest, TrapIsReportedWithItsKind) {
  RunResult r = Run("trap");
  EXPECT_EQ(r.stop, StopReason::kTrap);
  EXPECT_EQ(r.trap, wasm::TrapKind::kUnreachable);
  EXPECT_EQ(DescribeStop(r), "trap: unreachable");
  EXPECT_EQ(r.stdout_data, "about to trap\n");
}

TEST_F(WasiRunTest, FuelRunsOut) {
  request.fuel = 50'000;
  RunResult r = Run("spin");
  EXPECT_EQ(r.stop, StopReason::kOutOfFuel);
  EXPECT_LE(r.fuel_used, 50'000u);
  EXPECT_GT(r.fuel_used, 40'000u);
}

TEST_F(WasiRunTest, OutputFloodIsTruncatedAndRecorded) {
  request.stdout_cap = 1000;
  std::string live;
  request.stdout_sink = [&](std::span<const uint8_t> b) { live.append(b.begin(), b.end()); };
  RunResult r = Run("flood", {"64"});
  EXPECT_EQ(r.stop, StopReason::kReturned);
  EXPECT_EQ(r.stdout_data, std::string(1000, 'x'));
  EXPECT_EQ(live, r.stdout_data);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stdout_total_bytes, 64u * 1024 + 4);
  EXPECT_FALSE(r.stderr_truncated);
}

TEST_F(WasiRunTest, MemoryCapIsHitAndRecorded) {
  auto allocated = [](const RunResult& r) {
    int n = -1;
    sscanf(r.stdout_data.c_str(), "allocated %d MiB", &n);
    return n;
  };
  request.limits.max_memory_bytes = 8 << 20;
  RunResult small = Run("memory");
  EXPECT_EQ(small.stop, StopReason::kReturned);
  EXPECT_TRUE(small.memory_cap_hit);
  EXPECT_GE(allocated(small), 1);
  EXPECT_LT(allocated(small), 8);
  request.limits.max_memory_bytes = 32 << 20;
  RunResult large = Run("memory");
  EXPECT_TRUE(large.memory_cap_hit);
  EXPECT_GT(allocated(large), allocated(small) + 16);
}

TEST_F(WasiRunTest, SameRequestSameRun) {
  AddInputTree(request.mailbox);
  request.seed = 99;
  RunResult a = Run("random");
  RunResult b = Run("random");
  EXPECT_EQ(a.stdout_data, b.stdout_data);
  EXPECT_EQ(a.fuel_used, b.fuel_used);
  RunResult c1 = Run("clocks");
  RunResult c2 = Run("clocks");
  EXPECT_EQ(c1.stdout_data, c2.stdout_data);
  EXPECT_EQ(c1.fuel_used, c2.fuel_used);
}

TEST_F(WasiRunTest, DifferentSeedChangesOnlyTheRandomBytes) {
  request.seed = 1;
  RunResult a = Run("random");
  request.seed = 2;
  RunResult b = Run("random");
  ASSERT_EQ(a.stdout_data.size(), b.stdout_data.size());
  EXPECT_NE(a.stdout_data, b.stdout_data);
  // Line 1 carries the bytes; everything else, and the fuel, is the same.
  EXPECT_EQ(a.stdout_data.substr(a.stdout_data.find('\n')),
            b.stdout_data.substr(b.stdout_data.find('\n')));
  EXPECT_EQ(a.fuel_used, b.fuel_used);
  EXPECT_EQ(a.stop, b.stop);
}

TEST_F(WasiRunTest, UnknownImportIsNamed) {
  // (module (import "env" "foo" (func)))
  const std::vector<uint8_t> wasm = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01,
                                     0x04, 0x01, 0x60, 0x00, 0x00, 0x02, 0x0b, 0x01, 0x03,
                                     'e',  'n',  'v',  0x03, 'f',  'o',  'o',  0x00, 0x00};
  core::Result<RunResult> r = RunWasiCommand(wasm, request);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("unknown import \"env\" \"foo\""), std::string::npos) << r.message();
}

TEST_F(WasiRunTest, ModuleWithoutStartIsRejected) {
  const std::vector<uint8_t> wasm = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
  core::Result<RunResult> r = RunWasiCommand(wasm, request);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("_start"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("ampoule_main"), std::string::npos) << r.message();
}

TEST_F(WasiRunTest, ReactorRunsInitThenMain) {
  RunResult r = Run("reactor", {"x"});
  EXPECT_EQ(r.stop, StopReason::kReturned) << DescribeStop(r) << r.stderr_data;
  EXPECT_EQ(r.stdout_data.substr(0, r.stdout_data.find("init monotonic")),
            "counter=42 greeting=hello from init op(7)=14 heap=1048576 sum=8\n"
            "argv[0]=reactor.wasm\nargv[1]=x\n");
  EXPECT_NE(r.stdout_data.find("main monotonic after init=1\n"), std::string::npos);
  // Fuel counts _initialize and ampoule_init too: more than main's share.
  EXPECT_GT(r.fuel_used, 0u);
}

TEST_F(WasiRunTest, ReactorStatusIsTheExitCode) {
  RunResult r = Run("reactor", {"exit", "3"});
  EXPECT_EQ(r.stop, StopReason::kExit);
  EXPECT_EQ(r.exit_code, 3);
  r = Run("reactor", {"exit", "0"});
  EXPECT_EQ(r.stop, StopReason::kReturned);
  r = Run("reactor", {"proc_exit", "5"});
  EXPECT_EQ(r.stop, StopReason::kExit);
  EXPECT_EQ(r.exit_code, 5);
  r = Run("reactor", {"trap"});
  EXPECT_EQ(r.stop, StopReason::kTrap);
}

TEST_F(WasiRunTest, ReactorInitFailureStopsTheRun) {
  request.env = {"REACTOR_INIT_STATUS=7"};
  RunResult r = Run("reactor");
  EXPECT_EQ(r.stop, StopReason::kExit);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.stdout_data, "");  // ampoule_main never ran
}

TEST_F(WasiRunTest, ReactorFuelCountsEverything) {
  RunResult full = Run("reactor");
  request.fuel = full.fuel_used - 1;
  RunResult r = Run("reactor");
  EXPECT_EQ(r.stop, StopReason::kOutOfFuel);
  request.fuel = full.fuel_used;
  r = Run("reactor");
  EXPECT_EQ(r.stop, StopReason::kReturned);
  EXPECT_EQ(r.fuel_used, full.fuel_used);
}

TEST_F(WasiRunTest, ReactorEntryPointOfTheWrongTypeIsRejected) {
  // (module (func (export "ampoule_main")))
  const std::vector<uint8_t> wasm = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04,
                                     0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x10,
                                     0x01, 0x0c, 'a',  'm',  'p',  'o',  'u',  'l',  'e',  '_',
                                     'm',  'a',  'i',  'n',  0x00, 0x00, 0x0a, 0x04, 0x01, 0x02,
                                     0x00, 0x0b};
  core::Result<RunResult> r = RunWasiCommand(wasm, request);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("\"ampoule_main\" export has type"), std::string::npos)
      << r.message();
}

TEST_F(WasiRunTest, BadRequestIsRejected) {
  request.env = {"NOEQUALS"};
  core::Result<RunResult> r = RunWasiCommand(LoadGuest("args"), request);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("KEY=VALUE"), std::string::npos);
  request.env = {};
  request.args = {std::string("a\0b", 3)};
  r = RunWasiCommand(LoadGuest("args"), request);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("NUL"), std::string::npos);
}

}  // namespace
}  // namespace ampoule::wasi
