// DSSE: PAE vectors and envelope parsing and serialisation.
#include <gtest/gtest.h>

#include <string>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/pae.h"
#include "core/base64.h"

namespace ampoule::receipt {
namespace {

TEST(Pae, DsseProtocolExample) {
  EXPECT_EQ(Pae("http://example.com/HelloWorld", "hello world"),
            "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
}

TEST(Pae, EmptyTypeAndBody) { EXPECT_EQ(Pae("", ""), "DSSEv1 0  0 "); }

TEST(Pae, LengthsCountBytesNotCharacters) {
  // "é" is two UTF-8 bytes; a NUL is a byte like any other.
  EXPECT_EQ(Pae("t\xc3\xa9", std::string_view("a\0b", 3)),
            std::string("DSSEv1 3 t\xc3\xa9 3 a\0b", 18));
}

TEST(Pae, MultiDigitLengthsHaveNoLeadingZeros) {
  std::string body(1000, 'x');
  EXPECT_EQ(Pae(kInTotoPayloadType, body),
            "DSSEv1 28 application/vnd.in-toto+json 1000 " + body);
}

core::Result<Envelope> Parse(const std::string& text) { return ParseEnvelope(text); }

std::string ErrorOf(const std::string& text) {
  core::Result<Envelope> envelope = Parse(text);
  EXPECT_FALSE(envelope.ok()) << text;
  return envelope.ok() ? "" : envelope.message();
}

TEST(Envelope, ParsesTheDsseExample) {
  core::Result<Envelope> envelope = Parse(
      R"({"payload": "aGVsbG8gd29ybGQ=", "payloadType": "http://example.com/HelloWorld",
          "signatures": [{"sig": "A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajabZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA=="}]})");
  ASSERT_TRUE(envelope.ok()) << envelope.message();
  EXPECT_EQ(envelope->payload, "hello world");
  EXPECT_EQ(envelope->payload_type, "http://example.com/HelloWorld");
  ASSERT_EQ(envelope->signatures.size(), 1u);
  EXPECT_EQ(envelope->signatures[0].keyid, "");  // unset is the same as empty
  EXPECT_EQ(envelope->signatures[0].sig.size(), 64u);
}

TEST(Envelope, SerialiseThenParseRoundTrips) {
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  std::string payload("{\"a\":1}\0\xff", 9);
  Envelope envelope = SignEnvelope(kInTotoPayloadType, payload, key);
  AddSignature(envelope, core::ed25519::SecretKey::Generate());
  std::string text = SerializeEnvelope(envelope);
  core::Result<Envelope> parsed = Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  EXPECT_EQ(parsed->payload, payload);
  EXPECT_EQ(parsed->payload_type, kInTotoPayloadType);
  ASSERT_EQ(parsed->signatures.size(), 2u);
  EXPECT_EQ(parsed->signatures[0].keyid, key.public_key().KeyId());
  EXPECT_EQ(parsed->signatures[0].sig, envelope.signatures[0].sig);
  EXPECT_EQ(SerializeEnvelope(*parsed), text);  // stable
  EXPECT_EQ(text.back(), '\n');
}

TEST(Envelope, WritesStandardBase64) {
  Envelope envelope{"t", "\xfb\xff", {{"id", "\xfb\xff"}}};
  std::string text = SerializeEnvelope(envelope);
  EXPECT_NE(text.find("\"payload\": \"+/8=\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"sig\": \"+/8=\""), std::string::npos) << text;
}

TEST(Envelope, AcceptsUrlSafeAndUnpaddedBase64) {
  core::Result<Envelope> envelope =
      Parse(R"({"payload": "-_8", "payloadType": "t", "signatures": [{"sig": "-_8="}]})");
  ASSERT_TRUE(envelope.ok()) << envelope.message();
  EXPECT_EQ(envelope->payload, "\xfb\xff");
  EXPECT_EQ(envelope->signatures[0].sig, "\xfb\xff");
}

TEST(Envelope, IgnoresUnknownFields) {
  core::Result<Envelope> envelope = Parse(
      R"({"payload": "", "payloadType": "", "extra": [1, {"x": null}],
          "signatures": [{"sig": "", "keyid": "k", "cert": "whatever"}]})");
  ASSERT_TRUE(envelope.ok()) << envelope.message();
  EXPECT_EQ(envelope->signatures[0].keyid, "k");
}

TEST(Envelope, AcceptsEmptySignatureListAtParse) {
  // DSSE: required "even if empty"; verification then fails (verify_test).
  EXPECT_TRUE(Parse(R"({"payload": "", "payloadType": "t", "signatures": []})").ok());
}

TEST(Envelope, RequiredFieldsAndTypes) {
  EXPECT_NE(ErrorOf(R"({"payloadType": "t", "signatures": []})").find("\"payload\""),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"payload": "", "signatures": []})").find("\"payloadType\""),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"payload": "", "payloadType": "t"})").find("\"signatures\""),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": [{}]})").find("\"sig\""),
            std::string::npos);
  ErrorOf(R"({"payload": 1, "payloadType": "t", "signatures": []})");
  ErrorOf(R"({"payload": "", "payloadType": null, "signatures": []})");
  ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": {}})");
  ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": ["AAAA"]})");
  ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": [{"sig": "", "keyid": 7}]})");
  ErrorOf(R"(["payload"])");
  ErrorOf("");
  ErrorOf("{");
  ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": []} trailing)");
}

TEST(Envelope, RejectsBadBase64) {
  EXPECT_NE(ErrorOf(R"({"payload": "a b", "payloadType": "t", "signatures": []})").find("payload"),
            std::string::npos);
  std::string bad_sig = R"({"payload": "", "payloadType": "t", "signatures": [{"sig": "+_=="}]})";
  EXPECT_NE(ErrorOf(bad_sig).find("sig"), std::string::npos);
}

TEST(Envelope, RejectsDuplicateKeys) {
  EXPECT_NE(ErrorOf(R"({"payload": "", "payload": "AA==", "payloadType": "t", "signatures": []})")
                .find("duplicate"),
            std::string::npos);
  ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": [{"sig": "", "sig": ""}]})");
}

TEST(Envelope, RejectsInvalidUtf8) {
  ErrorOf("{\"payload\": \"\", \"payloadType\": \"\xff\", \"signatures\": []}");
}

TEST(Envelope, NamedLimits) {
  std::string deep = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_NE(ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": [], "x": )" + deep + "}")
                .find("nested"),
            std::string::npos);
  std::string sigs;
  for (size_t i = 0; i <= kMaxSignatures; ++i) sigs += std::string(i ? "," : "") + R"({"sig":""})";
  EXPECT_NE(ErrorOf(R"({"payload": "", "payloadType": "t", "signatures": [)" + sigs + "]}")
                .find("signatures"),
            std::string::npos);
}

}  // namespace
}  // namespace ampoule::receipt
