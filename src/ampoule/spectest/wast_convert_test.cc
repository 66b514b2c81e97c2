#include "ampoule/spectest/wast_convert.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace ampoule::spectest {
namespace {
namespace fs = std::filesystem;

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(WastConvertTest, ContentHashIsFnv1a64) {
  EXPECT_EQ(ContentHash(Bytes("")), "cbf29ce484222325");
  EXPECT_EQ(ContentHash(Bytes("a")), "af63dc4c8601ec8c");
  EXPECT_NE(ContentHash(Bytes("(module)")), ContentHash(Bytes("(module) ")));
}

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core::Result<fs::path> tool = FindWast2Json();
    if (!tool) GTEST_SKIP() << tool.message();
    tool_ = *tool;
    dir_ = fs::temp_directory_path() / ("ampoule-convert-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  fs::path tool_;
  fs::path dir_;
};

TEST_F(ConvertTest, WritesJsonAndModules) {
  fs::path wast = Write("tiny.wast", "(module (func (export \"f\") (result i32) (i32.const 7)))\n"
                                     "(assert_return (invoke \"f\") (i32.const 7))\n");
  core::Result<fs::path> json = ConvertWast(tool_, wast, dir_ / "out");
  ASSERT_TRUE(json.ok()) << json.message();
  EXPECT_EQ(*json, dir_ / "out" / "tiny.json");
  EXPECT_TRUE(fs::exists(*json));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "tiny.0.wasm"));
}

TEST_F(ConvertTest, ReportsWast2JsonErrors) {
  fs::path wast = Write("broken.wast", "(module (func (i32.bogus)))\n");
  core::Result<fs::path> json = ConvertWast(tool_, wast, dir_ / "out");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.message().find("wast2json failed on"), std::string::npos) << json.message();
  EXPECT_NE(json.message().find("bogus"), std::string::npos) << json.message();
}

TEST_F(ConvertTest, CacheReusesAnEntryForTheSameContent) {
  fs::path wast = Write("c.wast", "(module)\n");
  core::Result<fs::path> first = ConvertWastCached(tool_, wast, dir_ / "cache");
  ASSERT_TRUE(first.ok()) << first.message();
  // Mark the entry: a reuse returns the marked file, a fresh conversion would overwrite it.
  std::ofstream(*first, std::ios::app) << " ";
  auto size = fs::file_size(*first);
  core::Result<fs::path> second = ConvertWastCached(tool_, wast, dir_ / "cache");
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(fs::file_size(*second), size);

  Write("c.wast", "(module (memory 1))\n");
  core::Result<fs::path> changed = ConvertWastCached(tool_, wast, dir_ / "cache");
  ASSERT_TRUE(changed.ok()) << changed.message();
  EXPECT_NE(*changed, *first);
  // No scratch entries are left behind.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "cache")) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    ++entries;
  }
  EXPECT_EQ(entries, 2u);
}

}  // namespace
}  // namespace ampoule::spectest
