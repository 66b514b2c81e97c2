// Ed25519 conformance: Wycheproof's 151 EdDSA cases and the twelve
// ed25519-speccheck edge cases, from ../shared/conformance/ed25519 (not
// copied into the repository). Each verdict must equal the expected one,
// both through the raw libsodium path and through the strict key loader.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/ed25519.h"
#include "core/file_read.h"
#include "core/hex.h"
#include "core/json_strict.h"

namespace core::ed25519 {
namespace {

using nlohmann::json;

// Loads one vector file, or skips the test with the reason.
std::optional<json> LoadVectors(const std::string& name) {
  const char* source = std::getenv("AMPOULE_SOURCE_DIR");
  if (source == nullptr) return std::nullopt;
  std::string path = std::string(source) + "/../shared/conformance/ed25519/" + name;
  core::Result<std::string> text = core::ReadFileCapped(path);
  if (!text.ok()) return std::nullopt;
  core::Result<json> doc = ParseJsonStrict(*text, path);
  EXPECT_TRUE(doc.ok()) << doc.message();
  if (!doc.ok()) return std::nullopt;
  return *doc;
}

#define LOAD_OR_SKIP(var, name)                                                           \
  std::optional<json> var = LoadVectors(name);                                            \
  if (!var) {                                                                             \
    GTEST_SKIP() << "Ed25519 vectors not found: set AMPOULE_SOURCE_DIR to the source "    \
                    "tree with ../shared/conformance/ed25519/" name " beside it";         \
  }

std::string Hex(const json& value) {
  core::Result<std::string> bytes = core::HexDecode(value.get<std::string>(), "vector");
  EXPECT_TRUE(bytes.ok()) << bytes.message();
  return bytes.ok() ? *bytes : std::string();
}

// The verdict through the path receipts use: strict load, then verify.
bool LoadAndVerify(const std::string& pk, const std::string& msg, const std::string& sig) {
  core::Result<PublicKey> key = PublicKey::FromBytes(pk);
  return key.ok() && Verify(*key, msg, sig);
}

TEST(Ed25519Conformance, WycheproofAllCasesAgree) {
  LOAD_OR_SKIP(doc, "wycheproof_ed25519_test.json");
  int cases = 0, valid = 0;
  for (const json& group : (*doc)["testGroups"]) {
    std::string pk = Hex(group["publicKey"]["pk"]);
    for (const json& test : group["tests"]) {
      ++cases;
      bool expected = test["result"] == "valid";
      valid += expected;
      std::string msg = Hex(test["msg"]), sig = Hex(test["sig"]);
      EXPECT_EQ(VerifyRaw(pk, msg, sig), expected)
          << "tcId " << test["tcId"] << ": " << test["comment"];
      EXPECT_EQ(LoadAndVerify(pk, msg, sig), expected)
          << "tcId " << test["tcId"] << " (strict load): " << test["comment"];
    }
  }
  EXPECT_EQ(cases, 151);
  EXPECT_EQ(cases, (*doc)["numberOfTests"].get<int>());
  EXPECT_EQ(valid, 88);
}

TEST(Ed25519Conformance, SpeccheckOnlyCase3Verifies) {
  LOAD_OR_SKIP(doc, "speccheck_cases.json");
  ASSERT_EQ(doc->size(), 12u);
  for (size_t i = 0; i < doc->size(); ++i) {
    const json& c = (*doc)[i];
    std::string pk = Hex(c["pub_key"]), msg = Hex(c["message"]), sig = Hex(c["signature"]);
    bool expected = i == 3;  // README table: V only for case 3
    EXPECT_EQ(VerifyRaw(pk, msg, sig), expected) << "speccheck case " << i;
    EXPECT_EQ(LoadAndVerify(pk, msg, sig), expected) << "speccheck case " << i << " (strict load)";
  }
}

// The cases whose public key is of small order (0, 1) or not canonically
// encoded (10, 11) are refused already when the key is loaded; the others
// load (their signatures are what is wrong).
TEST(Ed25519Conformance, SpeccheckWeakKeysRefusedOnLoad) {
  LOAD_OR_SKIP(doc, "speccheck_cases.json");
  for (size_t i = 0; i < doc->size(); ++i) {
    core::Result<PublicKey> key = PublicKey::FromBytes(Hex((*doc)[i]["pub_key"]));
    bool weak = i == 0 || i == 1 || i == 10 || i == 11;
    EXPECT_EQ(key.ok(), !weak) << "speccheck case " << i
                               << (key.ok() ? "" : ": " + key.message());
  }
}

// Every Wycheproof key is an ordinary key and must load.
TEST(Ed25519Conformance, WycheproofKeysLoad) {
  LOAD_OR_SKIP(doc, "wycheproof_ed25519_test.json");
  for (const json& group : (*doc)["testGroups"]) {
    core::Result<PublicKey> key = PublicKey::FromBytes(Hex(group["publicKey"]["pk"]));
    EXPECT_TRUE(key.ok()) << key.message();
  }
}

}  // namespace
}  // namespace core::ed25519
