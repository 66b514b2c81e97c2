// The runtimes' fixed start-up request and the default kernel path.
#include "ampoule/kernel/runtime_init.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include "ampoule/kernel/default_path.h"
#include "ampoule/kernel/entry_names.h"
#include "ampoule/kernel/tar_testing.h"
#include "ampoule/wasi/wasi_run.h"

namespace ampoule::kernel {
namespace {

EntryLookup Lookup(const std::map<std::string, std::vector<uint8_t>, std::less<>>& entries) {
  return [&entries](std::string_view name) -> core::Result<std::span<const uint8_t>> {
    auto it = entries.find(name);
    if (it == entries.end()) return core::Error{"no entry " + std::string(name)};
    return std::span<const uint8_t>(it->second);
  };
}

std::vector<uint8_t> ZoneinfoTar() {
  std::string tar = testing_tar::Member("./", "", '5') +
                    testing_tar::Member("./Europe/Paris", "TZif") + testing_tar::End();
  return std::vector<uint8_t>(tar.begin(), tar.end());
}

TEST(RuntimeInit, PythonGetsItsReadOnlyHomeTimeZonesAndWritableDirectoriesInOrder) {
  std::map<std::string, std::vector<uint8_t>, std::less<>> entries{
      {std::string(kPythonStdlibEntry), {'P', 'K'}}, {std::string(kTzdataEntry), ZoneinfoTar()}};
  auto request = RuntimeInitRequest(GuestRuntime::kPython, Lookup(entries));
  ASSERT_TRUE(request.ok()) << request.message();
  EXPECT_EQ(request->args, std::vector<std::string>{"python"});
  EXPECT_EQ(request->env, (std::vector<std::string>{"PYTHONHOME=/usr/local", "PYTHONHASHSEED=0",
                                                     "PYTHONDONTWRITEBYTECODE=1"}));
  const auto& preopens = request->mailbox.preopens();
  ASSERT_EQ(preopens.size(), 7u);
  EXPECT_EQ(preopens[0].guest_path, "/usr/local");
  EXPECT_EQ(preopens[1].guest_path, "/usr/share/zoneinfo");
  EXPECT_EQ(preopens[2].guest_path, "/input");
  EXPECT_EQ(preopens[3].guest_path, "/program");
  EXPECT_EQ(preopens[4].guest_path, "/tmp");
  EXPECT_EQ(preopens[5].guest_path, "/output");
  EXPECT_EQ(preopens[6].guest_path, "/");  // the working directory, writable
  EXPECT_TRUE(preopens[0].read_only);
  EXPECT_TRUE(preopens[1].read_only);
  const auto& lib = preopens[0].root->entries.at("lib");
  EXPECT_EQ(lib->entries.at("python311.zip")->contents, (std::vector<uint8_t>{'P', 'K'}));
  const auto& europe = preopens[1].root->entries.at("Europe");
  EXPECT_EQ(europe->entries.at("Paris")->contents, (std::vector<uint8_t>{'T', 'Z', 'i', 'f'}));
  for (size_t i = 2; i < 7; ++i) {
    EXPECT_TRUE(preopens[i].root->entries.empty()) << preopens[i].guest_path;
    EXPECT_FALSE(preopens[i].read_only) << preopens[i].guest_path;
  }
  EXPECT_EQ(request->seed, 0u);
  EXPECT_EQ(request->fuel, kRuntimeInitFuel);
  EXPECT_TRUE(request->stdin_bytes.empty());
}

TEST(RuntimeInit, JsHasNoEnvironmentAndNoRuntimeDirectory) {
  std::map<std::string, std::vector<uint8_t>, std::less<>> none;
  auto request = RuntimeInitRequest(GuestRuntime::kJs, Lookup(none));
  ASSERT_TRUE(request.ok()) << request.message();
  EXPECT_EQ(request->args, std::vector<std::string>{"js"});
  EXPECT_TRUE(request->env.empty());
  ASSERT_EQ(request->mailbox.preopens().size(), 5u);
  EXPECT_EQ(request->mailbox.preopens()[0].guest_path, "/input");
  EXPECT_EQ(request->mailbox.preopens()[1].guest_path, "/program");
  EXPECT_EQ(request->mailbox.preopens()[2].guest_path, "/tmp");
  EXPECT_EQ(request->mailbox.preopens()[3].guest_path, "/output");
  EXPECT_EQ(request->mailbox.preopens()[4].guest_path, "/");
  EXPECT_FALSE(request->mailbox.preopens()[4].read_only);
}

#ifdef AMPOULE_WASI_GUEST_DIR
// A program under either runtime's start-up request stands in a writable
// directory: tests/wasi/cwd.c writes "out.txt" where it starts, and each
// refusal it meets is a POSIX errno. (Before "/" was preopened, wasi-libc
// found no preopen for a relative name and said ENOTCAPABLE itself.)
TEST(RuntimeInit, GuestsStartInAWritableWorkingDirectory) {
  std::ifstream in(std::string(AMPOULE_WASI_GUEST_DIR) + "/cwd.wasm", std::ios::binary);
  std::vector<uint8_t> wasm{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_FALSE(wasm.empty());
  std::map<std::string, std::vector<uint8_t>, std::less<>> entries{
      {std::string(kPythonStdlibEntry), {'P', 'K'}}, {std::string(kTzdataEntry), ZoneinfoTar()}};
  const std::string common =
      "cwd: /\n"
      "write out.txt: OK\n"
      "read out.txt: written here\n"
      "read /out.txt: written here\n"
      "mkdir work: OK\n"
      "write work/a.txt: OK\n"
      "rename work/a.txt to b.txt: OK\n"
      "read ./b.txt: a\n"
      "hard link: OK\n"
      "symbolic link: OK\n"
      "read to_b: a\n"
      "symbolic link to an absolute path: EPERM\n"
      "write /tmp/t.txt: OK\n"
      "chdir /tmp: OK\n"
      "cwd: /tmp\n"
      "read t.txt: t\n"
      "escape with ..: EPERM\n"
      "read a missing file: ENOENT\n";
  for (GuestRuntime runtime : {GuestRuntime::kPython, GuestRuntime::kJs}) {
    auto request = RuntimeInitRequest(runtime, Lookup(entries));
    ASSERT_TRUE(request.ok()) << request.message();
    request->args = {"cwd.wasm"};
    if (runtime == GuestRuntime::kPython) request->args.push_back(std::string(kRuntimeDir));
    request->fuel = 1'000'000'000;
    request->output_dir = std::string(kOutputDir);
    core::Result<wasi::RunResult> r = wasi::RunWasiCommand(wasm, *request);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->stop, wasm::StopReason::kReturned) << r->stderr_data;
    std::string expected = common;
    if (runtime == GuestRuntime::kPython) {
      expected += "write into the read-only directory: EROFS\n"
                  "mkdir in the read-only directory: EROFS\n";
    }
    EXPECT_EQ(r->stdout_data, expected) << RuntimeName(runtime);
    // What the program left in its working directory is not an output.
    EXPECT_TRUE(r->files.empty());
  }
}
#endif

TEST(RuntimeInit, PythonWithoutItsStdlibIsAnError) {
  std::map<std::string, std::vector<uint8_t>, std::less<>> none;
  EXPECT_FALSE(RuntimeInitRequest(GuestRuntime::kPython, Lookup(none)).ok());
}

TEST(RuntimeInit, PythonWithoutUsableTimeZoneDataIsAnError) {
  std::map<std::string, std::vector<uint8_t>, std::less<>> entries{
      {std::string(kPythonStdlibEntry), {'P', 'K'}}};
  EXPECT_FALSE(RuntimeInitRequest(GuestRuntime::kPython, Lookup(entries)).ok());
  entries[std::string(kTzdataEntry)] = {'n', 'o', 't', ' ', 't', 'a', 'r'};
  auto bad = RuntimeInitRequest(GuestRuntime::kPython, Lookup(entries));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("tzdata/zoneinfo.tar"), std::string::npos) << bad.message();
}

TEST(RuntimeInit, MainArgsNameTheProgramUnderProgram) {
  EXPECT_EQ(RuntimeMainArgs(GuestRuntime::kPython, "prog.py"),
            (std::vector<std::string>{"python", "/program/prog.py"}));
  EXPECT_EQ(RuntimeMainArgs(GuestRuntime::kJs, "a.js"), (std::vector<std::string>{"js", "/program/a.js"}));
  EXPECT_EQ(RuntimeModuleEntry(GuestRuntime::kJs), kJsModuleEntry);
  EXPECT_EQ(RuntimeSnapshotEntry(GuestRuntime::kPython), kPythonSnapshotEntry);
}

TEST(DefaultKernelPath, BesideTheExecutableUnderShare) {
  EXPECT_EQ(KernelPathBesideExecutable("/opt/amp/bin/ampoule"), "/opt/amp/share/ampoule/ampoule.kernel");
  EXPECT_EQ(KernelPathBesideExecutable("/w/build/bin/ampoule"), "/w/build/share/ampoule/ampoule.kernel");
}

TEST(DefaultKernelPath, EnvironmentWinsWhenSet) {
  setenv("AMPOULE_KERNEL", "/tmp/k.kernel", 1);
  EXPECT_EQ(DefaultKernelPath(), "/tmp/k.kernel");
  setenv("AMPOULE_KERNEL", "", 1);
  std::string path = DefaultKernelPath();
  EXPECT_TRUE(path.ends_with("/share/ampoule/ampoule.kernel")) << path;
  unsetenv("AMPOULE_KERNEL");
}

}  // namespace
}  // namespace ampoule::kernel
