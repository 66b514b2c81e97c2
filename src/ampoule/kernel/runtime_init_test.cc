// The runtimes' fixed start-up request and the default kernel path.
#include "ampoule/kernel/runtime_init.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "ampoule/kernel/default_path.h"
#include "ampoule/kernel/entry_names.h"
#include "ampoule/kernel/tar_testing.h"

namespace ampoule::kernel {
namespace {

EntryLookup Lookup(const std::map<std::string, std::vector<uint8_t>, std::less<>>& entries) {
  return [&entries](std::string_view name) -> Result<std::span<const uint8_t>> {
    auto it = entries.find(name);
    if (it == entries.end()) return Error{"no entry " + std::string(name)};
    return std::span<const uint8_t>(it->second);
  };
}

std::vector<uint8_t> ZoneinfoTar() {
  std::string tar = testing_tar::Member("./", "", '5') +
                    testing_tar::Member("./Europe/Paris", "TZif") + testing_tar::End();
  return std::vector<uint8_t>(tar.begin(), tar.end());
}

TEST(RuntimeInit, PythonGetsItsReadOnlyHomeTimeZonesAndThreeDirectoriesInOrder) {
  std::map<std::string, std::vector<uint8_t>, std::less<>> entries{
      {std::string(kPythonStdlibEntry), {'P', 'K'}}, {std::string(kTzdataEntry), ZoneinfoTar()}};
  auto request = RuntimeInitRequest(GuestRuntime::kPython, Lookup(entries));
  ASSERT_TRUE(request.ok()) << request.message();
  EXPECT_EQ(request->args, std::vector<std::string>{"python"});
  EXPECT_EQ(request->env, (std::vector<std::string>{"PYTHONHOME=/usr/local", "PYTHONHASHSEED=0",
                                                     "PYTHONDONTWRITEBYTECODE=1"}));
  const auto& preopens = request->mailbox.preopens();
  ASSERT_EQ(preopens.size(), 6u);
  EXPECT_EQ(preopens[0].guest_path, "/usr/local");
  EXPECT_EQ(preopens[1].guest_path, "/usr/share/zoneinfo");
  EXPECT_EQ(preopens[2].guest_path, "/input");
  EXPECT_EQ(preopens[3].guest_path, "/program");
  EXPECT_EQ(preopens[4].guest_path, "/tmp");
  EXPECT_EQ(preopens[5].guest_path, "/output");
  EXPECT_TRUE(preopens[0].read_only);
  EXPECT_TRUE(preopens[1].read_only);
  const auto& lib = preopens[0].root->entries.at("lib");
  EXPECT_EQ(lib->entries.at("python311.zip")->contents, (std::vector<uint8_t>{'P', 'K'}));
  const auto& europe = preopens[1].root->entries.at("Europe");
  EXPECT_EQ(europe->entries.at("Paris")->contents, (std::vector<uint8_t>{'T', 'Z', 'i', 'f'}));
  for (size_t i = 2; i < 6; ++i) {
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
  ASSERT_EQ(request->mailbox.preopens().size(), 4u);
  EXPECT_EQ(request->mailbox.preopens()[0].guest_path, "/input");
  EXPECT_EQ(request->mailbox.preopens()[1].guest_path, "/program");
  EXPECT_EQ(request->mailbox.preopens()[2].guest_path, "/tmp");
  EXPECT_EQ(request->mailbox.preopens()[3].guest_path, "/output");
}

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
