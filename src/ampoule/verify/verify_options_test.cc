// Command-line shapes of ampoule-verify.
#include <gtest/gtest.h>

#include <vector>

#include "ampoule/verify/options.h"

namespace ampoule::verify {
namespace {

core::Result<Options> Parse(std::vector<const char*> args) { return ParseOptions(args); }

TEST(VerifyOptions, VerifyNeedsAReceiptAndAKey) {
  EXPECT_FALSE(Parse({}).ok());
  EXPECT_FALSE(Parse({"r.json"}).ok());
  EXPECT_FALSE(Parse({"--key", "k.pub"}).ok());
  core::Result<Options> o = Parse({"r.json", "--key", "k.pub"});
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->receipt, "r.json");
  EXPECT_EQ(o->keys, std::vector<std::string>{"k.pub"});
  EXPECT_TRUE(Parse({"--trusted-keys", "t", "r.json"}).ok());
}

TEST(VerifyOptions, ReplayNeedsKernelAndProgramButNoKey) {
  EXPECT_FALSE(Parse({"--replay", "r.json", "--kernel", "k"}).ok());
  EXPECT_FALSE(Parse({"--replay", "r.json", "--program", "p"}).ok());
  core::Result<Options> o = Parse({"--replay", "r.json", "--kernel", "k", "--program", "p"});
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_TRUE(o->replay);
  EXPECT_TRUE(o->keys.empty());
}

TEST(VerifyOptions, Inputs) {
  core::Result<NamedFile> f = ParseInputArg("data.csv=/tmp/x.csv");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->name, "data.csv");
  EXPECT_EQ(f->path, "/tmp/x.csv");
  f = ParseInputArg("/tmp/dir/x.csv");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->name, "x.csv");
  EXPECT_EQ(f->path, "/tmp/dir/x.csv");
  f = ParseInputArg("/tmp/a=b/x.csv");  // '/' before '=': a path
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->name, "x.csv");
  EXPECT_FALSE(ParseInputArg("=x").ok());
  EXPECT_FALSE(ParseInputArg("x=").ok());
  EXPECT_FALSE(ParseInputArg("..=x").ok());
  EXPECT_FALSE(Parse({"r", "--key", "k", "--input", "a=1", "--input", "a=2"}).ok());
}

TEST(VerifyOptions, Refusals) {
  EXPECT_FALSE(Parse({"r", "--key"}).ok());
  EXPECT_FALSE(Parse({"r", "--key", "k", "--bogus"}).ok());
  EXPECT_FALSE(Parse({"r", "s", "--key", "k"}).ok());
  EXPECT_FALSE(Parse({"r", "--key", "k", "--kernel", "a", "--kernel", "b"}).ok());
  EXPECT_FALSE(Parse({"r", "--key", "k", "--timeout", "5"}).ok());
  EXPECT_FALSE(Parse({"--replay", "r", "--kernel", "k", "--program", "p", "--timeout", "-1"}).ok());
  EXPECT_FALSE(Parse({"--replay", "r", "--kernel", "k", "--program", "p", "--timeout", "x"}).ok());
  EXPECT_FALSE(Parse({"r", "--key", "k", "--help"}).ok()) << "exit 0 must always be a verdict";
  core::Result<Options> help = Parse({"--help"});
  ASSERT_TRUE(help.ok());
  EXPECT_TRUE(help->help);
}

}  // namespace
}  // namespace ampoule::verify
