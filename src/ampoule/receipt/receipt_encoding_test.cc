// Base64 and hex as receipts use them.
#include <gtest/gtest.h>

#include <string>

#include "ampoule/receipt/envelope.h"
#include "core/base64.h"
#include "core/hex.h"
#include "core/json_strict.h"
#include "core/sha256.h"

namespace ampoule::receipt {
namespace {

std::string Decoded(std::string_view text) {
  core::Result<std::string> out = core::Base64Decode(text, "test");
  EXPECT_TRUE(out.ok()) << text << ": " << out.message();
  return out.ok() ? *out : "<error>";
}

bool Rejected(std::string_view text) { return !core::Base64Decode(text, "test").ok(); }

TEST(Base64, EncodesRfc4648Vectors) {
  EXPECT_EQ(core::Base64Encode(""), "");
  EXPECT_EQ(core::Base64Encode("f"), "Zg==");
  EXPECT_EQ(core::Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(core::Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(core::Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(core::Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(core::Base64Encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, EncodesWithTheStandardAlphabet) {
  EXPECT_EQ(core::Base64Encode("\xfb\xff"), "+/8=");
}

TEST(Base64, DecodesStandardAndUrlSafePaddedOrNot) {
  EXPECT_EQ(Decoded("+/8="), "\xfb\xff");
  EXPECT_EQ(Decoded("+/8"), "\xfb\xff");
  EXPECT_EQ(Decoded("-_8="), "\xfb\xff");
  EXPECT_EQ(Decoded("-_8"), "\xfb\xff");
  EXPECT_EQ(Decoded("Zm9vYg=="), "foob");
  EXPECT_EQ(Decoded("Zm9vYg"), "foob");
  EXPECT_EQ(Decoded(""), "");
}

TEST(Base64, RoundTripsEveryByteValue) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t len = 0; len <= all.size(); len += 37) {
    std::string bytes = all.substr(0, len);
    EXPECT_EQ(Decoded(core::Base64Encode(bytes)), bytes);
  }
}

TEST(Base64, RejectsMalformedText) {
  EXPECT_TRUE(Rejected("+_8="));       // two alphabets at once
  EXPECT_TRUE(Rejected("Zm9v\n"));     // whitespace
  EXPECT_TRUE(Rejected(" Zm9v"));
  EXPECT_TRUE(Rejected("Zm9vYg="));    // too little padding
  EXPECT_TRUE(Rejected("Zm9vYmE=="));  // too much padding
  EXPECT_TRUE(Rejected("Zm9v===="));
  EXPECT_TRUE(Rejected("===="));
  EXPECT_TRUE(Rejected("Zm=9v"));      // padding inside
  EXPECT_TRUE(Rejected("Zh=="));       // non-zero unused bits: one spelling per bytes
  EXPECT_TRUE(Rejected("Z"));          // a lone character carries no whole byte
  EXPECT_TRUE(Rejected("Zm9v*"));
  EXPECT_TRUE(Rejected(std::string_view("Zm\0v", 4)));
}

TEST(Base64, ErrorNamesTheField) {
  core::Result<std::string> out = core::Base64Decode("!!", "payload");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("payload"), std::string::npos) << out.message();
}

TEST(Hex, EncodesLowercaseAndDecodesBothCases) {
  EXPECT_EQ(core::HexEncode(std::string_view("\x00\xab\xff", 3)), "00abff");
  core::Result<std::string> bytes = core::HexDecode("00ABff", "test");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, std::string("\x00\xab\xff", 3));
  EXPECT_FALSE(core::HexDecode("abc", "test").ok());
  EXPECT_FALSE(core::HexDecode("zz", "test").ok());
  EXPECT_FALSE(core::HexDecode("ab cd", "test").ok());
}

TEST(Hex, IsLowerHexChecksLengthAndCase) {
  EXPECT_TRUE(core::IsLowerHex(std::string(64, 'a'), 32));
  EXPECT_FALSE(core::IsLowerHex(std::string(64, 'A'), 32));
  EXPECT_FALSE(core::IsLowerHex(std::string(63, 'a'), 32));
  EXPECT_FALSE(core::IsLowerHex(std::string(64, 'g'), 32));
}

TEST(Hex, Sha256OfKnownInputs) {
  EXPECT_EQ(core::Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(core::Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// Strict JSON for signed documents: one reading of every byte, whatever
// reader is used (docs/receipt-spec.md, "Strict JSON").
TEST(StrictJson, RefusesAByteOrderMark) {
  core::Result<nlohmann::json> v = core::ParseJsonStrict("\xEF\xBB\xBF{\"a\": 1}", "envelope");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.message().find("byte-order mark"), std::string::npos) << v.message();
  EXPECT_FALSE(ParseEnvelope("\xEF\xBB\xBF{\"payloadType\": \"x\", \"payload\": \"\", \"signatures\": []}").ok());
}

TEST(StrictJson, ExactNumbersRefuseWhatWouldBeRounded) {
  // In a field no reader looks at, too: two readers must not disagree on
  // whether the document is valid.
  for (const char* text : {R"({"ignored": 18446744073709551616})", R"({"ignored": -9223372036854775809})",
                           R"({"ignored": [1, 2, 123456789012345678901234567890]})"}) {
    core::Result<nlohmann::json> v = core::ParseJsonStrict(text, "statement", core::JsonNumbers::kExact);
    ASSERT_FALSE(v.ok()) << text;
    EXPECT_NE(v.message().find("beyond 64 bits"), std::string::npos) << v.message();
    EXPECT_TRUE(core::ParseJsonStrict(text, "statement").ok()) << "the lenient mode keeps its old reading";
  }
  for (const char* text : {R"({"ignored": 1e400})", R"({"ignored": -1e309})"}) {
    core::Result<nlohmann::json> v = core::ParseJsonStrict(text, "statement", core::JsonNumbers::kExact);
    ASSERT_FALSE(v.ok()) << text;
    EXPECT_NE(v.message().find("out of range"), std::string::npos) << v.message();
  }
  for (const char* text : {R"({"n": 18446744073709551615})", R"({"n": -9223372036854775808})",
                           R"({"n": 1.5e300})", R"({"n": 0.1})"}) {
    EXPECT_TRUE(core::ParseJsonStrict(text, "statement", core::JsonNumbers::kExact).ok()) << text;
  }
}

}  // namespace
}  // namespace ampoule::receipt
