// The verification core: signature before meaning, keyid never decides.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/pae.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/receipt/verify.h"
#include "core/base64.h"

namespace ampoule::receipt {
namespace {

std::string StatementPayload() {
  Statement statement;
  statement.subject.push_back({"stdout", {{"sha256", std::string(64, 'c')}}});
  statement.predicate_type = "https://example.com/run/v2";
  statement.predicate = {{"result", {{"status", 0}}}};
  return SerializeStatement(statement);
}

class VerifyTest : public ::testing::Test {
 protected:
  core::ed25519::SecretKey signer_ = core::ed25519::SecretKey::Generate();
  core::ed25519::SecretKey stranger_ = core::ed25519::SecretKey::Generate();
  std::vector<core::ed25519::PublicKey> trusted_{signer_.public_key()};
};

TEST_F(VerifyTest, SignedReceiptVerifies) {
  std::string text =
      SerializeEnvelope(SignEnvelope(kInTotoPayloadType, StatementPayload(), signer_));
  core::Result<VerifiedReceipt> receipt = VerifyReceipt(text, trusted_);
  ASSERT_TRUE(receipt.ok()) << receipt.message();
  EXPECT_EQ(receipt->signer, signer_.public_key());
  EXPECT_EQ(receipt->statement.subject[0].name, "stdout");
}

TEST_F(VerifyTest, TamperingAnyPayloadByteFails) {
  Envelope envelope = SignEnvelope(kInTotoPayloadType, StatementPayload(), signer_);
  for (size_t i = 0; i < envelope.payload.size(); ++i) {
    Envelope tampered = envelope;
    tampered.payload[i] ^= 0x01;
    EXPECT_FALSE(VerifyEnvelope(tampered, trusted_).ok()) << "payload byte " << i;
    EXPECT_FALSE(VerifyReceipt(SerializeEnvelope(tampered), trusted_).ok()) << i;
  }
  Envelope longer = envelope;
  longer.payload += ' ';
  EXPECT_FALSE(VerifyEnvelope(longer, trusted_).ok());
  Envelope shorter = envelope;
  shorter.payload.pop_back();
  EXPECT_FALSE(VerifyEnvelope(shorter, trusted_).ok());
}

TEST_F(VerifyTest, TamperingAnySignatureBitFails) {
  Envelope envelope = SignEnvelope(kInTotoPayloadType, StatementPayload(), signer_);
  for (size_t i = 0; i < envelope.signatures[0].sig.size() * 8; ++i) {
    Envelope tampered = envelope;
    tampered.signatures[0].sig[i / 8] ^= static_cast<char>(1 << (i % 8));
    EXPECT_FALSE(VerifyEnvelope(tampered, trusted_).ok()) << "signature bit " << i;
  }
}

TEST_F(VerifyTest, PayloadTypeIsSigned) {
  Envelope envelope = SignEnvelope(kInTotoPayloadType, StatementPayload(), signer_);
  envelope.payload_type = "application/vnd.in-toto+jsoN";
  EXPECT_FALSE(VerifyEnvelope(envelope, trusted_).ok());
}

TEST_F(VerifyTest, WrongOrMissingKeysFail) {
  Envelope envelope = SignEnvelope(kInTotoPayloadType, StatementPayload(), stranger_);
  EXPECT_FALSE(VerifyEnvelope(envelope, trusted_).ok());
  EXPECT_FALSE(VerifyEnvelope(envelope, {}).ok());
  envelope.signatures.clear();
  EXPECT_FALSE(VerifyEnvelope(envelope, std::vector<core::ed25519::PublicKey>{stranger_.public_key()}).ok());
}

TEST_F(VerifyTest, KeyIdHintNeverDecides) {
  // A stranger's signature that claims the trusted key's id still fails.
  Envelope forged = SignEnvelope(kInTotoPayloadType, StatementPayload(), stranger_);
  forged.signatures[0].keyid = signer_.public_key().KeyId();
  EXPECT_FALSE(VerifyEnvelope(forged, trusted_).ok());
  // A trusted signature with a wrong or empty hint still verifies.
  Envelope genuine = SignEnvelope(kInTotoPayloadType, StatementPayload(), signer_);
  for (const std::string& hint :
       std::vector<std::string>{"", "nonsense", stranger_.public_key().KeyId()}) {
    genuine.signatures[0].keyid = hint;
    EXPECT_TRUE(VerifyEnvelope(genuine, trusted_).ok()) << hint;
  }
}

TEST_F(VerifyTest, OneTrustedSignatureAmongSeveralIsEnough) {
  Envelope envelope = SignEnvelope(kInTotoPayloadType, StatementPayload(), stranger_);
  envelope.signatures.push_back({"junk", std::string(64, '\x07')});
  AddSignature(envelope, signer_);
  std::vector<core::ed25519::PublicKey> trusted{stranger_.public_key()};
  trusted.push_back(core::ed25519::SecretKey::Generate().public_key());
  EXPECT_TRUE(VerifyEnvelope(envelope, trusted).ok());
  core::Result<VerifiedEnvelope> verified =
      VerifyEnvelope(envelope, std::vector<core::ed25519::PublicKey>{core::ed25519::SecretKey::Generate().public_key(),
                                                      signer_.public_key()});
  ASSERT_TRUE(verified.ok()) << verified.message();
  EXPECT_EQ(verified->signer, signer_.public_key());
  EXPECT_EQ(verified->signature_index, 2u);
}

TEST_F(VerifyTest, UrlSafeBase64VerifiesToo) {
  Envelope envelope = SignEnvelope(kInTotoPayloadType, StatementPayload(), signer_);
  auto url_safe = [](std::string b64) {
    for (char& c : b64) c = c == '+' ? '-' : c == '/' ? '_' : c;
    while (!b64.empty() && b64.back() == '=') b64.pop_back();
    return b64;
  };
  nlohmann::json doc = {
      {"payloadType", envelope.payload_type},
      {"payload", url_safe(core::Base64Encode(envelope.payload))},
      {"signatures", {{{"sig", url_safe(core::Base64Encode(envelope.signatures[0].sig))}}}}};
  EXPECT_TRUE(VerifyReceipt(doc.dump(), trusted_).ok());
}

TEST_F(VerifyTest, SignatureIsCheckedBeforeThePayloadIsParsed) {
  // An unsigned garbage payload is reported as a signature failure: the
  // statement parser never saw it.
  Envelope envelope{std::string(kInTotoPayloadType), "{not json", {}};
  AddSignature(envelope, stranger_);
  core::Result<VerifiedReceipt> receipt = VerifyReceipt(SerializeEnvelope(envelope), trusted_);
  ASSERT_FALSE(receipt.ok());
  EXPECT_NE(receipt.message().find("signature"), std::string::npos) << receipt.message();
  // Signed garbage passes the signature and then fails to parse.
  envelope.signatures.clear();
  AddSignature(envelope, signer_);
  receipt = VerifyReceipt(SerializeEnvelope(envelope), trusted_);
  ASSERT_FALSE(receipt.ok());
  EXPECT_NE(receipt.message().find("statement"), std::string::npos) << receipt.message();
}

TEST_F(VerifyTest, SignedButWrongPayloadTypeFails) {
  std::string text =
      SerializeEnvelope(SignEnvelope("application/json", StatementPayload(), signer_));
  core::Result<VerifiedReceipt> receipt = VerifyReceipt(text, trusted_);
  ASSERT_FALSE(receipt.ok());
  EXPECT_NE(receipt.message().find("payloadType"), std::string::npos) << receipt.message();
}

TEST_F(VerifyTest, SignatureCoversThePae) {
  // The signature is over PAE(type, payload), not over the bare payload.
  Envelope envelope = SignEnvelope(kInTotoPayloadType, StatementPayload(), signer_);
  EXPECT_TRUE(core::ed25519::Verify(signer_.public_key(), Pae(kInTotoPayloadType, envelope.payload),
                     envelope.signatures[0].sig));
  EXPECT_FALSE(core::ed25519::Verify(signer_.public_key(), envelope.payload, envelope.signatures[0].sig));
  Envelope bare{std::string(kInTotoPayloadType), envelope.payload,
                {{"", signer_.Sign(envelope.payload)}}};
  EXPECT_FALSE(VerifyEnvelope(bare, trusted_).ok());
}

}  // namespace
}  // namespace ampoule::receipt
