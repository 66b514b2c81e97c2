#include "ampoule/spectest/suite.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "ampoule/spectest/wast_convert.h"

namespace ampoule::spectest {
namespace {
namespace fs = std::filesystem;

class SuiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ampoule-suite-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "scripts");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(SuiteTest, FoldersContributeTheirWastFilesInNameOrder) {
  Write("scripts/b.wast", "");
  Write("scripts/a.wast", "");
  Write("scripts/notes.txt", "");
  fs::path json = Write("c.json", "{}");
  core::Result<std::vector<fs::path>> scripts = ListScripts({(dir_ / "scripts").string(), json.string()});
  ASSERT_TRUE(scripts.ok()) << scripts.message();
  ASSERT_EQ(scripts->size(), 3u);
  EXPECT_EQ((*scripts)[0].filename(), "a.wast");
  EXPECT_EQ((*scripts)[1].filename(), "b.wast");
  EXPECT_EQ((*scripts)[2].filename(), "c.json");
}

TEST_F(SuiteTest, ListingRejectsWhatItCannotRun) {
  core::Result<std::vector<fs::path>> missing = ListScripts({(dir_ / "nope").string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("no such file or folder"), std::string::npos);
  fs::path txt = Write("x.txt", "");
  EXPECT_FALSE(ListScripts({txt.string()}).ok());
  fs::create_directories(dir_ / "empty");
  core::Result<std::vector<fs::path>> empty = ListScripts({(dir_ / "empty").string()});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("no .wast files"), std::string::npos);
  EXPECT_FALSE(ListScripts({}).ok());
}

TEST_F(SuiteTest, RunsAScriptEndToEndInAChild) {
  if (!FindWast2Json()) GTEST_SKIP() << "wast2json is not installed";
  // Uses only decoding, validation and instantiation (no function calls).
  fs::path wast = Write("scripts/tiny.wast",
                        "(module (global (export \"g\") i32 (i32.const 42)))\n"
                        "(assert_return (get \"g\") (i32.const 42))\n"
                        "(assert_return (get \"g\") (i32.const 41))\n"
                        "(assert_malformed (module quote \"(func\") \"unexpected token\")\n");
  fs::path broken = Write("scripts/zz_broken.wast", "(module (func (i32.bogus)))\n");
  SuiteOptions options;
  options.inputs = {(dir_ / "scripts").string()};
  options.cache_dir = (dir_ / "cache").string();
  std::vector<FileReport> reports;
  core::Result<Totals> totals = RunSuite(options, [&](const FileReport& r) { reports.push_back(r); });
  ASSERT_TRUE(totals.ok()) << totals.message();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(FormatFileLine(reports[0]), "tiny.wast: 2 passed, 1 failed, 1 skipped");
  ASSERT_EQ(reports[0].failures.size(), 1u);
  EXPECT_EQ(reports[0].failures[0].line, 3u);
  EXPECT_EQ(reports[1].failed, 1u);  // could not be converted
  EXPECT_NE(reports[1].error.find("wast2json failed"), std::string::npos) << reports[1].error;
  EXPECT_EQ(FormatTotals(*totals), "2 passed, 2 failed, 1 skipped");
}

}  // namespace
}  // namespace ampoule::spectest
