// Opening kernels: from bytes, a path and a descriptor; lazy entry checks;
// the manifest agreeing with the table; clean errors for damaged files.
#include "ampoule/kernel/kernel.h"
#include "core/sha256.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ampoule/kernel/entry_names.h"
#include "ampoule/kernel/kernel_pack.h"
#include "ampoule/wasm/fuel.h"

namespace ampoule::kernel {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

KernelBuild SmallBuild() {
  KernelBuild build;
  build.engine = Bytes("\x7f" "ELF pretend engine");
  build.engine_build = {{"compiler", "g++ 12"}};
  build.runtime_entries[std::string(kPythonModuleEntry)] = Bytes(std::string_view("\0asm python", 11));
  build.runtime_entries[std::string(kPythonStdlibEntry)] = Bytes(std::string(10000, 'z'));
  build.runtime_entries[std::string(kJsModuleEntry)] = Bytes(std::string_view("\0asm js", 7));
  build.runtimes_manifest = {{"key", "0123456789abcdef"},
                             {"inputs", {{"source.python3.11", "3.11.2-6+deb12u8"}, {"deb.clang-14", "1:14.0.6-12"}}},
                             {"build", {{"python.modules_not_built", "_ssl"}}}};
  build.snapshots_note = "none for this test";
  return build;
}

std::vector<uint8_t> SmallKernel() {
  auto bytes = AssembleKernel(SmallBuild());
  EXPECT_TRUE(bytes.ok()) << bytes.message();
  return *bytes;
}

std::string TempFile(const std::vector<uint8_t>& bytes) {
  std::string path = testing::TempDir() + "/kernel_test_" + std::to_string(getpid()) + ".kernel";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

std::string OpenError(std::vector<uint8_t> bytes) {
  auto k = Kernel::FromBytes(std::move(bytes), "k");
  return k.ok() ? "(opened)" : k.message();
}

TEST(Kernel, OpensFromBytesWithManifestAndDigest) {
  auto bytes = SmallKernel();
  auto k = Kernel::FromBytes(bytes);
  ASSERT_TRUE(k.ok()) << k.message();
  EXPECT_EQ((*k)->digest(), core::Sha256Hex(bytes));
  EXPECT_EQ((*k)->size(), bytes.size());
  const KernelManifest& m = (*k)->manifest();
  EXPECT_EQ(m.format_version, kKernelFormatVersion);
  EXPECT_EQ(m.cost_table_version, wasm::kFuelCostTableVersion);
  EXPECT_EQ(m.engine.sha256, core::Sha256Hex(SmallBuild().engine));
  EXPECT_EQ(m.engine_build.at("compiler"), "g++ 12");
  EXPECT_EQ(m.runtimes_key, "0123456789abcdef");
  EXPECT_EQ(m.RuntimeSources().at("python3.11"), "3.11.2-6+deb12u8");
  EXPECT_EQ(m.RuntimeToolchain().at("clang-14"), "1:14.0.6-12");
  EXPECT_FALSE(m.snapshots);
  EXPECT_EQ(m.entries.size(), 4u);
  auto js = (*k)->Entry(kJsModuleEntry);
  ASSERT_TRUE(js.ok()) << js.message();
  EXPECT_EQ(std::string(js->begin(), js->end()), std::string("\0asm js", 7));
  EXPECT_EQ(uint64_t(js->data() - (*k)->bytes().data()) % kKernelAlignment, 0u);
  EXPECT_TRUE((*k)->VerifyAll().ok());
  EXPECT_NE((*k)->Entry("nope").message().find("no entry 'nope'"), std::string::npos);
}

TEST(Kernel, AssemblyIsDeterministic) { EXPECT_EQ(SmallKernel(), SmallKernel()); }

TEST(Kernel, OpensFromAPathAndFromADescriptorItDoesNotOwn) {
  auto bytes = SmallKernel();
  std::string path = TempFile(bytes);
  auto by_path = Kernel::Open(path);
  ASSERT_TRUE(by_path.ok()) << by_path.message();
  EXPECT_EQ((*by_path)->digest(), core::Sha256Hex(bytes));
  int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto by_fd = Kernel::OpenFd(fd, "fd 3");
  close(fd);  // the mapping outlives the descriptor
  std::remove(path.c_str());
  ASSERT_TRUE(by_fd.ok()) << by_fd.message();
  auto zip = (*by_fd)->Entry(kPythonStdlibEntry);
  ASSERT_TRUE(zip.ok());
  EXPECT_EQ(zip->size(), 10000u);
  EXPECT_EQ((*by_fd)->digest(), core::Sha256Hex(bytes));
}

TEST(Kernel, OpenErrorsNameTheFile) {
  EXPECT_NE(Kernel::Open("/nonexistent/k").message().find("cannot open kernel '/nonexistent/k'"), std::string::npos);
  EXPECT_NE(Kernel::Open("/").message().find("not a regular file"), std::string::npos);
  std::string empty = TempFile({});
  EXPECT_NE(Kernel::Open(empty).message().find("is empty"), std::string::npos);
  std::remove(empty.c_str());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_NE(Kernel::OpenFd(fds[0], "fd 3").message().find("fd 3 is not a regular file"), std::string::npos);
  close(fds[0]);
  close(fds[1]);
}

TEST(Kernel, ADamagedEntryIsFoundWhenFirstReadAndByVerifyAll) {
  auto bytes = SmallKernel();
  auto k0 = Kernel::FromBytes(bytes);
  ASSERT_TRUE(k0.ok());
  uint64_t at = 0;
  for (const auto& e : (*k0)->entries()) {
    if (e.name == kJsModuleEntry) at = e.offset;
  }
  bytes[at + 1] ^= 1;
  auto k = Kernel::FromBytes(bytes);
  ASSERT_TRUE(k.ok()) << "entries other than the manifest are checked lazily";
  EXPECT_TRUE((*k)->Entry(kPythonModuleEntry).ok());
  auto js = (*k)->Entry(kJsModuleEntry);
  EXPECT_NE(js.message().find("'js/js.wasm' does not match its SHA-256"), std::string::npos);
  EXPECT_FALSE((*k)->Entry(kJsModuleEntry).ok()) << "the verdict is kept";
  EXPECT_FALSE((*k)->VerifyAll().ok());
}

TEST(Kernel, ADamagedManifestFailsTheOpen) {
  auto bytes = SmallKernel();
  auto k0 = Kernel::FromBytes(bytes);
  ASSERT_TRUE(k0.ok());
  for (const auto& e : (*k0)->entries()) {
    if (e.name == kManifestEntry) bytes[e.offset + 3] ^= 1;
  }
  EXPECT_NE(OpenError(bytes).find("'manifest.json' does not match"), std::string::npos);
}

// Packs `entries` with a hand-written manifest.
std::vector<uint8_t> WithManifest(const std::string& manifest, std::vector<PackEntry> entries) {
  entries.push_back({std::string(kManifestEntry), {reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size()}});
  auto packed = PackKernel(entries);
  EXPECT_TRUE(packed.ok());
  return *packed;
}

TEST(Kernel, ManifestMustAgreeWithTheTable) {
  KernelBuild build = SmallBuild();
  std::vector<uint8_t> engine = build.engine, other = Bytes("other");
  std::string sha = core::Sha256Hex(engine);
  auto manifest = [&](const std::string& entries, const std::string& engine_sha, int version = 1) {
    return "{\"kind\":\"ampoule-kernel\",\"format_version\":" + std::to_string(version) +
           ",\"cost_table_version\":1,\"engine\":{\"sha256\":\"" + engine_sha + "\",\"bytes\":" +
           std::to_string(engine.size()) + "},\"snapshots\":{\"included\":false},\"entries\":{" + entries + "}}";
  };
  std::string engine_row = "\"engine\":{\"sha256\":\"" + sha + "\",\"bytes\":" + std::to_string(engine.size()) + "}";
  EXPECT_EQ(OpenError(WithManifest(manifest(engine_row, sha), {{"engine", engine}})), "(opened)");
  EXPECT_NE(OpenError(WithManifest(manifest(engine_row, sha), {{"engine", engine}, {"x", other}})).find("lists 1"),
            std::string::npos);
  EXPECT_NE(OpenError(WithManifest(manifest(engine_row, sha), {{"engine", other}})).find("disagree"),
            std::string::npos);
  EXPECT_NE(OpenError(WithManifest(manifest(engine_row, sha, 2), {{"engine", engine}})).find("format version 2"),
            std::string::npos);
  std::string zeros(64, '0');
  EXPECT_NE(OpenError(WithManifest(manifest(engine_row, zeros), {{"engine", engine}})).find("engine digest"),
            std::string::npos);
  EXPECT_NE(OpenError(WithManifest("{}", {{"engine", engine}})).find("'kind'"), std::string::npos);
  EXPECT_NE(OpenError(WithManifest("{\"kind\": ", {{"engine", engine}})).find("kernel manifest"), std::string::npos);
  EXPECT_NE(OpenError(*PackKernel(std::vector<PackEntry>{{"engine", engine}})).find("no entry 'manifest.json'"),
            std::string::npos);
}

TEST(Kernel, ManifestBytesAreStable) {
  // Golden: changing the manifest's layout changes every kernel digest.
  KernelManifest m;
  m.format_version = 1;
  m.cost_table_version = 1;
  m.engine = {std::string(64, 'a'), 3};
  m.entries["engine"] = m.engine;
  m.snapshots_note = "n";
  EXPECT_EQ(SerializeManifest(m),
            "{\n  \"cost_table_version\": 1,\n  \"engine\": {\n    \"build\": {},\n    \"bytes\": 3,\n"
            "    \"sha256\": \"" + std::string(64, 'a') + "\"\n  },\n  \"entries\": {\n    \"engine\": {\n"
            "      \"bytes\": 3,\n      \"sha256\": \"" + std::string(64, 'a') + "\"\n    }\n  },\n"
            "  \"format_version\": 1,\n  \"kind\": \"ampoule-kernel\",\n  \"runtimes\": {\n"
            "    \"build\": {},\n    \"inputs\": {},\n    \"key\": \"\"\n  },\n"
            "  \"snapshots\": {\n    \"included\": false,\n    \"note\": \"n\"\n  }\n}\n");
  auto back = ParseManifest(SerializeManifest(m));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->engine.sha256, m.engine.sha256);
}

}  // namespace
}  // namespace ampoule::kernel
