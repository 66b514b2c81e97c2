// Reading a runtimes folder for packing: files must match their manifest.
#include "ampoule/kernel/kernel_pack.h"
#include "core/sha256.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ampoule/kernel/entry_names.h"
#include "ampoule/kernel/kernel.h"
#include "ampoule/kernel/kernel_format.h"
#include "ampoule/wasi/snapshot_tiny_module.h"

namespace ampoule::kernel {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string Sha(const std::string& text) {
  return core::Sha256Hex({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

class KernelPackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("kernel_pack_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    Write(dir_ / "engine", "ELF");
    Write(dir_ / "rt/python.wasm", "py");
    Write(dir_ / "rt/lib/python311.zip", "zip");
    Write(dir_ / "rt/js.wasm", "js");
    Write(dir_ / "rt/share/zoneinfo.tar", "tar");
    WriteManifest("js");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void WriteManifest(const std::string& js_contents) {
    Write(dir_ / "rt/manifest.json",
          "{\"key\":\"k1\",\"inputs\":{\"source.quickjs\":\"2025.04.26-1\"},\"build\":{},\"outputs\":{"
          "\"python.wasm\":{\"sha256\":\"" + Sha("py") + "\",\"bytes\":2},"
          "\"lib/python311.zip\":{\"sha256\":\"" + Sha("zip") + "\",\"bytes\":3},"
          "\"js.wasm\":{\"sha256\":\"" + Sha(js_contents) + "\",\"bytes\":2},"
          "\"share/zoneinfo.tar\":{\"sha256\":\"" + Sha("tar") + "\",\"bytes\":3}}}");
  }
  fs::path dir_;
};

TEST_F(KernelPackTest, ReadsTheRuntimesFolderIntoNamedEntries) {
  auto build = ReadKernelBuild((dir_ / "engine").string(), (dir_ / "rt").string());
  ASSERT_TRUE(build.ok()) << build.message();
  EXPECT_EQ(build->runtime_entries.size(), 4u);
  EXPECT_EQ(build->runtime_entries.at(std::string(kTzdataEntry)).size(), 3u);
  EXPECT_EQ(build->runtime_entries.at(std::string(kPythonStdlibEntry)).size(), 3u);
  auto bytes = AssembleKernel(*build);
  ASSERT_TRUE(bytes.ok()) << bytes.message();
  auto k = Kernel::FromBytes(*bytes);
  ASSERT_TRUE(k.ok()) << k.message();
  EXPECT_EQ((*k)->manifest().RuntimeSources().at("quickjs"), "2025.04.26-1");
  EXPECT_EQ((*k)->manifest().runtimes_key, "k1");
  EXPECT_TRUE((*k)->VerifyAll().ok());
}

TEST_F(KernelPackTest, AFileThatDiffersFromTheRuntimesManifestIsRefused) {
  WriteManifest("something else");
  auto build = ReadKernelBuild((dir_ / "engine").string(), (dir_ / "rt").string());
  EXPECT_NE(build.message().find("mixes two builds"), std::string::npos) << build.message();
}

TEST_F(KernelPackTest, MissingFilesAreNamed) {
  fs::remove(dir_ / "rt/js.wasm");
  EXPECT_NE(ReadKernelBuild((dir_ / "engine").string(), (dir_ / "rt").string()).message().find("js.wasm"),
            std::string::npos);
  EXPECT_NE(ReadKernelBuild((dir_ / "nope").string(), (dir_ / "rt").string()).message().find("engine:"),
            std::string::npos);
}

TEST(KernelSnapshots, AReactorGetsASnapshotACommandDoesNot) {
  KernelBuild build;
  build.engine = {1, 2, 3};
  std::vector<uint8_t> tiny(std::begin(wasi::kSnapshotTinyReactor), std::end(wasi::kSnapshotTinyReactor));
  // A minimal command module: magic and version only (no ampoule_init).
  std::vector<uint8_t> command = {0, 'a', 's', 'm', 1, 0, 0, 0};
  build.runtime_entries[std::string(kJsModuleEntry)] = tiny;
  build.runtime_entries[std::string(kPythonModuleEntry)] = command;
  build.runtime_entries[std::string(kPythonStdlibEntry)] = {'P', 'K'};
  core::Status made = AddRuntimeSnapshots(&build);
  ASSERT_TRUE(made.ok()) << made.message();
  EXPECT_TRUE(build.snapshots);
  EXPECT_EQ(build.runtime_entries.count(std::string(kPythonSnapshotEntry)), 0u);
  ASSERT_EQ(build.runtime_entries.count(std::string(kJsSnapshotEntry)), 1u);
  EXPECT_NE(build.snapshots_note.find("python: not a reactor"), std::string::npos) << build.snapshots_note;
  EXPECT_NE(build.snapshots_note.find("js: snapshot after ampoule_init"), std::string::npos);
  // The same build gives the same snapshot bytes.
  KernelBuild again = build;
  again.runtime_entries.erase(std::string(kJsSnapshotEntry));
  ASSERT_TRUE(AddRuntimeSnapshots(&again).ok());
  EXPECT_EQ(again.runtime_entries.at(std::string(kJsSnapshotEntry)),
            build.runtime_entries.at(std::string(kJsSnapshotEntry)));
}

TEST(KernelSnapshots, AModuleThatDoesNotCompileIsAnError) {
  KernelBuild build;
  build.runtime_entries[std::string(kJsModuleEntry)] = {0, 'a', 's', 'm', 9, 9};
  EXPECT_NE(AddRuntimeSnapshots(&build).message().find("js/js.wasm"), std::string::npos);
}

}  // namespace
}  // namespace ampoule::kernel
