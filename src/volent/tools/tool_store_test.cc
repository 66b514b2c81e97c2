// The tool store from the outside: what gets in, what a changed file or a
// foreign signature meets at add and at load.
#include "volent/tools/tool_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "core/base64.h"
#include "core/sha256.h"

namespace volent::tools {
namespace {

namespace rc = ampoule::receipt;

// The smallest valid module: the header alone.
const std::string kModule("\0asm\x01\0\0\0", 8);

class ToolStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tool_store_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    trusted_ = {author_.public_key()};
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Sign(const std::string& bytes, const SecretKey& key) {
    auto sig = SignTool(bytes, kWasmKind, "refund_policy.wasm", key);
    EXPECT_TRUE(sig.ok()) << (sig.ok() ? "" : sig.message());
    return sig.ok() ? *sig : "";
  }

  void Overwrite(const std::string& path, const std::string& bytes) {
    std::filesystem::permissions(path, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  std::string dir_;
  SecretKey author_ = SecretKey::Generate();
  std::vector<PublicKey> trusted_;
};

TEST_F(ToolStoreTest, AddThenLoadGivesTheSameBytesAndWhoSigned) {
  ToolStore store(dir_);
  const std::string tool = kModule + std::string("\x00\x01\x02", 3);
  auto info = store.Add(tool, Sign(tool, author_), trusted_);
  ASSERT_TRUE(info.ok()) << info.message();
  EXPECT_EQ(info->digest, core::Sha256Hex(tool));
  EXPECT_EQ(info->kind, "wasm");
  EXPECT_EQ(info->name, "refund_policy.wasm");
  EXPECT_EQ(info->bytes, tool.size());
  EXPECT_EQ(info->signer_key, author_.public_key().KeyId());

  auto loaded = store.Load(info->digest, trusted_);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(loaded->bytes, tool);
  // Adding again is not an error; the list has it once.
  ASSERT_TRUE(store.Add(tool, Sign(tool, author_), trusted_).ok());
  auto listed = store.List(trusted_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_TRUE((*listed)[0].check.ok());
}

TEST_F(ToolStoreTest, ATamperedToolIsRefusedAtAdd) {
  ToolStore store(dir_);
  const std::string signature = Sign(kModule, author_);
  const std::string tampered = kModule + "x";
  auto info = store.Add(tampered, signature, trusted_);
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.message().find("the file was changed"), std::string::npos) << info.message();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/tools/" + core::Sha256Hex(tampered)));
}

TEST_F(ToolStoreTest, AToolChangedInTheStoreIsRefusedAtLoadAndInTheList) {
  ToolStore store(dir_);
  auto info = store.Add(kModule, Sign(kModule, author_), trusted_);
  ASSERT_TRUE(info.ok()) << info.message();
  Overwrite(dir_ + "/tools/" + info->digest + "/tool", kModule + "evil");
  auto loaded = store.Load(info->digest, trusted_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.message().find("the file was changed"), std::string::npos) << loaded.message();
  auto listed = store.List(trusted_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_FALSE((*listed)[0].check.ok());
  // Adding the genuine tool again does not hide the damage: remove it first.
  auto again = store.Add(kModule, Sign(kModule, author_), trusted_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.kind(), core::ErrorKind::kConflict);
  ASSERT_TRUE(store.Remove(info->digest).ok());
  EXPECT_TRUE(store.Add(kModule, Sign(kModule, author_), trusted_).ok());
}

TEST_F(ToolStoreTest, AnotherToolsSignatureSwappedInIsRefusedAtLoad) {
  ToolStore store(dir_);
  const std::string other = kModule + "other";
  auto a = store.Add(kModule, Sign(kModule, author_), trusted_);
  ASSERT_TRUE(a.ok());
  Overwrite(dir_ + "/tools/" + a->digest + "/signature.json", Sign(other, author_));
  EXPECT_FALSE(store.Load(a->digest, trusted_).ok());
}

TEST_F(ToolStoreTest, AnUntrustedSignerIsRefused) {
  ToolStore store(dir_);
  SecretKey stranger = SecretKey::Generate();
  auto info = store.Add(kModule, Sign(kModule, stranger), trusted_);
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.message().find("signature"), std::string::npos) << info.message();
  // No trusted keys at all: refused, and the message says why.
  auto none = store.Add(kModule, Sign(kModule, author_), {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("tool_keys"), std::string::npos) << none.message();
}

TEST_F(ToolStoreTest, AReceiptOrAStatementOfTwoSubjectsIsNotAToolSignature) {
  ToolStore store(dir_);
  rc::Statement statement;
  rc::Subject subject;
  subject.name = "stdout";
  subject.digest["sha256"] = core::Sha256Hex(kModule);
  statement.subject = {subject};
  statement.predicate_type = "https://ampoule.dev/attestations/run/v3";
  statement.predicate = {{"kind", "wasm"}};
  auto receipt = rc::SerializeEnvelope(
      rc::SignEnvelope(rc::kInTotoPayloadType, rc::SerializeStatement(statement), author_));
  auto refused = store.Add(kModule, receipt, trusted_);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("not a tool signature"), std::string::npos) << refused.message();

  statement.predicate_type = std::string(kToolPredicateType);
  statement.subject = {subject, subject};
  auto two = rc::SerializeEnvelope(
      rc::SignEnvelope(rc::kInTotoPayloadType, rc::SerializeStatement(statement), author_));
  refused = store.Add(kModule, two, trusted_);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("exactly one subject"), std::string::npos) << refused.message();
}

TEST_F(ToolStoreTest, EachKindIsCheckedForWhatItIs) {
  EXPECT_FALSE(SignTool("print('hi')\n", kWasmKind, "tool.py", author_).ok());
  EXPECT_FALSE(SignTool(kModule, "python", "tool.py", author_).ok());  // a module is no program text
  auto ruby = SignTool("puts 1\n", "ruby", "tool.rb", author_);
  ASSERT_FALSE(ruby.ok());
  EXPECT_NE(ruby.message().find("not run by this node"), std::string::npos) << ruby.message();

  ToolStore store(dir_);
  const std::string program = "import json, sys\nprint(json.dumps(json.load(sys.stdin)))\n";
  auto signature = SignTool(program, "python", "echo.py", author_);
  ASSERT_TRUE(signature.ok()) << signature.message();
  auto info = store.Add(program, *signature, trusted_);
  ASSERT_TRUE(info.ok()) << info.message();
  EXPECT_EQ(info->kind, "python");
}

TEST_F(ToolStoreTest, MissingToolsAndBadDigestsAreErrorsNotCrashes) {
  ToolStore store(dir_);
  const std::string absent(64, 'a');
  auto loaded = store.Load(absent, trusted_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.kind(), core::ErrorKind::kNotFound);
  EXPECT_EQ(store.Remove(absent).kind(), core::ErrorKind::kNotFound);
  EXPECT_FALSE(store.Load("../../etc", trusted_).ok());
  EXPECT_FALSE(store.Remove("../..").ok());
  auto listed = store.List(trusted_);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());

  EXPECT_EQ(*ParseToolDigest("sha256:" + std::string(64, 'A')), std::string(64, 'a'));
  EXPECT_FALSE(ParseToolDigest("sha256:abc").ok());
  EXPECT_FALSE(ParseToolDigest(std::string(64, 'g')).ok());
}

TEST_F(ToolStoreTest, TrustedToolKeysDecodeTheConfigurationsKeys) {
  manifest::TrustedToolKey key{"release", core::Base64Encode(author_.public_key().raw())};
  auto keys = TrustedToolKeys({key});
  ASSERT_TRUE(keys.ok()) << keys.message();
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ((*keys)[0], author_.public_key());
  auto bad = TrustedToolKeys({{"broken", "bm90IGEga2V5"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("broken"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace volent::tools
