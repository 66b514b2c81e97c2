// The jail's behaviour: programs run, output flows, exits and signals are
// reported, deadlines and CPU limits kill, set-up errors are messages.
// Escape attempts are in jail_escape_test.cc.
#include "ampoule/sandbox/jail.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "ampoule/sandbox/jail_testing.h"

namespace ampoule {
namespace {

using namespace std::chrono_literals;
using testing::RunProbe;

class JailTest : public testing::JailFixture {};

TEST(JailSupportCanaryTest, JailIsSupportedHere) {
  core::Status supported = CheckJailSupported();
  EXPECT_TRUE(supported.ok()) << supported.message();
}

TEST_F(JailTest, ProgramRunsAndItsOutputComesThroughAPipe) {
  testing::ProbeRun run = RunProbe("jail_probe", {"hello", "a b", "c"});
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_TRUE(run.exit->exited) << run.exit->Describe();
  EXPECT_EQ(run.exit->exit_code, 0);
  EXPECT_EQ(run.output, "hello from the jail a b c\n");
  EXPECT_TRUE(run.output_closed);
}

TEST_F(JailTest, StdinIsTheFirstMappedDescriptor) {
  testing::ProbeRun run = RunProbe("jail_probe", {"echo"}, {}, std::nullopt, "ping\npong\n");
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_EQ(run.exit->Describe(), "exited with status 0");
  EXPECT_EQ(run.output, "ping\npong\n");
}

TEST_F(JailTest, AnOpenedFileRunsAsWellAsAMemfd) {
  core::UniqueFd exe(open(testing::HelperPath("jail_probe").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(exe.valid());
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  core::UniqueFd out_read(out[0]), out_write(out[1]);
  const int fds[] = {out_read.get(), out_write.get()};
  const std::string args[] = {"jail_probe", "hello"};
  core::Result<JailedProcess> process = SpawnJailed(exe.get(), fds, args, {});
  ASSERT_TRUE(process.ok()) << process.message();
  out_write.reset();
  ASSERT_TRUE(WaitJailed(*process, std::nullopt).ok());
  EXPECT_EQ(testing::ReadToEof(out_read.get(), 5s), "hello from the jail\n");
}

// Sources that are also targets: the pipe's read end goes where the write
// end's number is and the other way round; every other slot gets the write
// end. Done naively in order, dup2 would clobber a source before its use.
TEST_F(JailTest, DescriptorsAreMappedEvenWhenSourcesAreTargets) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  core::UniqueFd in_read(p[0]), out_write(p[1]);
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  core::UniqueFd result_read(out[0]), result_write(out[1]);
  const int n = std::max(in_read.get(), out_write.get()) + 2;
  std::vector<int> fds(n, out_write.get());
  fds[out_write.get()] = in_read.get();
  fds[1] = result_write.get();
  std::string expected;
  for (int i = 0; i < n; ++i) {
    const bool read_end = fds[i] == in_read.get();
    expected += std::to_string(i) + (read_end ? ":r " : ":w ");
  }
  core::UniqueFd exe = testing::HelperMemfd("jail_probe");
  const std::string args[] = {"jail_probe", "fd-kinds"};
  JailOptions options;
  options.max_open_files = n + 8;
  core::Result<JailedProcess> process = SpawnJailed(exe.get(), fds, args, options);
  ASSERT_TRUE(process.ok()) << process.message();
  result_write.reset();
  ASSERT_TRUE(WaitJailed(*process, std::nullopt).ok());
  EXPECT_EQ(testing::ReadToEof(result_read.get(), 5s), expected + "\n");
}

TEST_F(JailTest, InsideItIsUid1000Pid1WithAFixedHostnameAndNoEnvironment) {
  testing::ProbeRun run = RunProbe("jail_probe", {"info"});
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_EQ(run.output, "uid=1000 gid=1000 euid=1000 pid=1 ppid=0 hostname=ampoule env=0\n");
}

TEST_F(JailTest, ExitCodesAreReported) {
  for (int code : {1, 42, 255}) {
    testing::ProbeRun run = RunProbe("jail_probe", {"exit", std::to_string(code)});
    ASSERT_TRUE(run.exit) << run.spawn_error;
    EXPECT_TRUE(run.exit->exited);
    EXPECT_EQ(run.exit->exit_code, code);
    EXPECT_FALSE(run.exit->timed_out);
  }
}

TEST_F(JailTest, ACrashIsReportedAsItsSignal) {
  testing::ProbeRun run = RunProbe("jail_probe", {"crash"});
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_FALSE(run.exit->exited);
  EXPECT_EQ(run.exit->signal, SIGSEGV);
  EXPECT_EQ(run.exit->Describe(), "killed by signal 11 (SIGSEGV)");
}

TEST_F(JailTest, TheDeadlineKillsASpinningProgram) {
  testing::ProbeRun run = RunProbe("jail_probe", {"spin"}, {}, 200ms);
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_TRUE(run.exit->timed_out);
  EXPECT_EQ(run.exit->signal, SIGKILL);
  EXPECT_FALSE(run.exit->cpu_limit_hit);
  EXPECT_EQ(run.exit->Describe(), "killed by the host at its deadline");
}

// Descendants can only exist when seccomp and RLIMIT_NPROC allow fork; the
// PID namespace must still take all of them down with PID 1.
TEST_F(JailTest, TheDeadlineKillsEveryDescendantToo) {
  JailOptions options;
  options.skip_seccomp_for_testing = true;
  options.max_processes = 8;
  testing::ProbeRun run = RunProbe("jail_probe", {"spin-family"}, options, 300ms);
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_TRUE(run.exit->timed_out);
  // Each of the four processes held the pipe: end-of-file means all died.
  EXPECT_TRUE(run.output_closed);
  EXPECT_EQ(std::count(run.output.begin(), run.output.end(), '\n'), 4) << run.output;
}

TEST_F(JailTest, TheCpuLimitIsABackstop) {
  JailOptions options;
  options.cpu_seconds = 1;
  testing::ProbeRun run = RunProbe("jail_probe", {"spin"}, options, 20s);
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_FALSE(run.exit->timed_out);
  EXPECT_TRUE(run.exit->cpu_limit_hit)
      << run.exit->Describe() << " after " << run.exit->cpu_time.count() << " us of CPU";
  EXPECT_EQ(run.exit->signal, SIGKILL);
}

TEST_F(JailTest, AMappedFileCannotBeWritten) {
  // Read-only is all SpawnJailed accepts for regular files (see
  // BadRequestsAreRefusedBeforeAnythingStarts); RLIMIT_FSIZE 0 is behind it.
  FILE* file = tmpfile();
  ASSERT_NE(file, nullptr);
  core::UniqueFd read_only(open(("/proc/self/fd/" + std::to_string(fileno(file))).c_str(), O_RDONLY));
  ASSERT_TRUE(read_only.valid());
  core::UniqueFd exe = testing::HelperMemfd("jail_probe");
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  core::UniqueFd out_read(out[0]), out_write(out[1]);
  const int fds[] = {out_read.get(), out_write.get(), out_write.get(), read_only.get()};
  const std::string args[] = {"jail_probe", "write-file"};
  core::Result<JailedProcess> process = SpawnJailed(exe.get(), fds, args, {});
  ASSERT_TRUE(process.ok()) << process.message();
  core::Result<JailExit> exit = WaitJailed(*process, std::nullopt);
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->Describe(), "exited with status 2");
  EXPECT_EQ(ftell(file), 0);
  fclose(file);
}

TEST_F(JailTest, TryReapDoesNotBlockAndPidfdSignalsTheExit) {
  core::UniqueFd exe = testing::HelperMemfd("jail_probe");
  int in[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  core::UniqueFd in_read(in[0]), in_write(in[1]);
  const int fds[] = {in_read.get()};
  const std::string args[] = {"jail_probe", "echo"};
  core::Result<JailedProcess> process = SpawnJailed(exe.get(), fds, args, {});
  ASSERT_TRUE(process.ok()) << process.message();
  in_read.reset();
  core::Result<std::optional<JailExit>> early = process->TryReap();
  ASSERT_TRUE(early.ok());
  EXPECT_FALSE(early->has_value());  // blocked reading stdin
  in_write.reset();                  // EOF: echo returns 0
  pollfd pfd{process->pidfd(), POLLIN, 0};
  ASSERT_EQ(poll(&pfd, 1, 10000), 1);
  core::Result<std::optional<JailExit>> done = process->TryReap();
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(done->has_value());
  EXPECT_EQ((*done)->Describe(), "exited with status 0");
}

TEST_F(JailTest, DroppingTheHandleKillsTheJail) {
  core::UniqueFd exe = testing::HelperMemfd("jail_probe");
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  core::UniqueFd out_read(out[0]), out_write(out[1]);
  const int fds[] = {out_read.get(), out_write.get()};
  const std::string args[] = {"jail_probe", "spin"};
  {
    core::Result<JailedProcess> process = SpawnJailed(exe.get(), fds, args, {});
    ASSERT_TRUE(process.ok()) << process.message();
  }
  out_write.reset();
  EXPECT_TRUE(testing::ReadToEof(out_read.get(), 5s).has_value());
}

TEST_F(JailTest, AnExecFailureIsAMessageNotAnExitCode) {
  core::UniqueFd text(memfd_create("not-elf", MFD_CLOEXEC));
  ASSERT_EQ(write(text.get(), "hello", 5), 5);
  const std::string args[] = {"x"};
  core::Result<JailedProcess> process = SpawnJailed(text.get(), {}, args, {});
  ASSERT_FALSE(process.ok());
  EXPECT_EQ(process.message(),
            "jail: starting the executable (execveat) failed: Exec format error");
}

TEST_F(JailTest, ASetUpStepFailingInTheChildIsNamed) {
  JailOptions options;
  options.max_open_files = uint64_t{1} << 40;  // above any hard limit
  testing::ProbeRun run = RunProbe("jail_probe", {"hello"}, options);
  EXPECT_FALSE(run.exit);
  EXPECT_EQ(run.spawn_error, "jail: setting resource limits failed: Operation not permitted");
}

TEST(JailRequestTest, BadRequestsAreRefusedBeforeAnythingStarts) {
  core::UniqueFd exe = testing::HelperMemfd("jail_probe");
  const std::string args[] = {"jail_probe"};
  const int closed[] = {987};
  EXPECT_EQ(SpawnJailed(exe.get(), closed, args, {}).message(),
            "jail: descriptor 987 (for child fd 0) is not open");
  EXPECT_EQ(SpawnJailed(exe.get(), {}, {}, {}).message(),
            "jail: argv must have at least the program name");
  FILE* writable = tmpfile();
  ASSERT_NE(writable, nullptr);
  const int file[] = {fileno(writable)};
  EXPECT_EQ(SpawnJailed(exe.get(), file, args, {}).message(),
            "jail: descriptor " + std::to_string(fileno(writable)) +
                " (for child fd 0) is a regular file open for writing; map files read-only");
  fclose(writable);
  core::UniqueFd dir(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const int directory[] = {dir.get()};
  EXPECT_EQ(SpawnJailed(exe.get(), directory, args, {}).message(),
            "jail: descriptor " + std::to_string(dir.get()) +
                " (for child fd 0) is a directory; only files and pipes can be mapped");
  JailOptions tight;
  tight.max_open_files = 2;
  const int one[] = {exe.get()};
  EXPECT_FALSE(SpawnJailed(exe.get(), one, args, tight).ok());
}

TEST(NoJailTest, OnlyLimitsDescriptorsAndEnvironmentApply) {
  JailOptions options;
  options.insecure_no_jail = true;
  testing::ProbeRun run = RunProbe("jail_probe", {"info"}, options);
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_NE(run.output.find(" env=0\n"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("pid=1 "), std::string::npos) << run.output;
  run = RunProbe("jail_probe", {"fds"}, options);
  EXPECT_NE(run.output.find("RESULT fds blocked"), std::string::npos) << run.output;
}

TEST(NoJailTest, TheDeadlineStillKillsTheProcessGroup) {
  if (geteuid() != 0) GTEST_SKIP() << "RLIMIT_NPROC counts all of this user's processes";
  JailOptions options;
  options.insecure_no_jail = true;
  options.max_processes = 8;
  testing::ProbeRun run = RunProbe("jail_probe", {"spin-family"}, options, 300ms);
  ASSERT_TRUE(run.exit) << run.spawn_error;
  EXPECT_TRUE(run.exit->timed_out);
  EXPECT_TRUE(run.output_closed);
}

}  // namespace
}  // namespace ampoule
