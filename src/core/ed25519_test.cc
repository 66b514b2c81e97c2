// Ed25519 keys: RFC 8032 vectors, the strict load check, key ids.
#include <gtest/gtest.h>

#include <string>

#include "core/ed25519.h"
#include "core/hex.h"
#include "core/sha256.h"

namespace core::ed25519 {
namespace {

std::string Bytes(std::string_view hex) {
  core::Result<std::string> out = core::HexDecode(hex, "test");
  EXPECT_TRUE(out.ok()) << out.message();
  return out.ok() ? *out : std::string();
}

struct Rfc8032Case {
  const char* seed;
  const char* public_key;
  const char* message;
  const char* signature;
};

// RFC 8032 section 7.1, TEST 1 and TEST 2.
constexpr Rfc8032Case kRfc8032[] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9"
     "b46bd25bf5f0595bbe24655141438e7a100b"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f1"
     "1d8c387b2eaeb4302aeeb00d291612bb0c00"},
};

TEST(Ed25519, Rfc8032SignAndVerify) {
  for (const Rfc8032Case& c : kRfc8032) {
    core::Result<SecretKey> key = SecretKey::FromSeed(Bytes(c.seed));
    ASSERT_TRUE(key.ok()) << key.message();
    EXPECT_EQ(core::HexEncode(key->public_key().raw()), c.public_key);
    std::string signature = key->Sign(Bytes(c.message));
    EXPECT_EQ(core::HexEncode(signature), c.signature);
    EXPECT_TRUE(Verify(key->public_key(), Bytes(c.message), signature));
    EXPECT_FALSE(Verify(key->public_key(), Bytes(c.message) + "x", signature));
  }
}

TEST(Ed25519, GeneratedKeysSignAndDiffer) {
  SecretKey a = SecretKey::Generate();
  SecretKey b = SecretKey::Generate();
  EXPECT_NE(a.public_key(), b.public_key());
  std::string signature = a.Sign("message");
  EXPECT_TRUE(Verify(a.public_key(), "message", signature));
  EXPECT_FALSE(Verify(b.public_key(), "message", signature));
  EXPECT_TRUE(PublicKey::FromBytes(a.public_key().raw()).ok());
}

TEST(Ed25519, SignatureOfWrongLengthNeverVerifies) {
  SecretKey key = SecretKey::Generate();
  std::string signature = key.Sign("m");
  EXPECT_FALSE(Verify(key.public_key(), "m", signature.substr(0, 63)));
  EXPECT_FALSE(Verify(key.public_key(), "m", signature + '\0'));
  EXPECT_FALSE(Verify(key.public_key(), "m", ""));
}

TEST(Ed25519, KeyIdIsHexSha256OfRawKey) {
  core::Result<SecretKey> key = SecretKey::FromSeed(Bytes(kRfc8032[0].seed));
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->public_key().KeyId(), core::Sha256Hex(Bytes(kRfc8032[0].public_key)));
  EXPECT_TRUE(core::IsLowerHex(key->public_key().KeyId(), 32));
}

TEST(Ed25519, MovedFromKeyIsWiped) {
  SecretKey a = SecretKey::Generate();
  std::string seed(a.seed());
  SecretKey b = std::move(a);
  EXPECT_EQ(b.seed(), seed);
  EXPECT_EQ(a.seed(), std::string(kSeedBytes, '\0'));  // NOLINT(bugprone-use-after-move)
}

TEST(Ed25519, SeedOfWrongLengthIsAnError) {
  EXPECT_FALSE(SecretKey::FromSeed(std::string(31, 'x')).ok());
  EXPECT_FALSE(SecretKey::FromSeed(std::string(33, 'x')).ok());
}

// Small-order points: anyone can make signatures that verify under them.
TEST(Ed25519Load, RefusesSmallOrderKeys) {
  const char* weak[] = {
      "0100000000000000000000000000000000000000000000000000000000000000",  // identity
      "0100000000000000000000000000000000000000000000000000000000000080",  // identity, -0
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // order 2
      "0000000000000000000000000000000000000000000000000000000000000000",  // order 4
      "0000000000000000000000000000000000000000000000000000000000000080",  // order 4
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  // order 8
      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  // order 8
  };
  for (const char* hex : weak) {
    core::Result<PublicKey> key = PublicKey::FromBytes(Bytes(hex));
    ASSERT_FALSE(key.ok()) << hex;
    EXPECT_NE(key.message().find("weak"), std::string::npos) << hex << ": " << key.message();
  }
}

TEST(Ed25519Load, RefusesNonCanonicalEncodings) {
  const char* non_canonical[] = {
      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p + 1
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  // y = 2^255 - 1
  };
  for (const char* hex : non_canonical) {
    core::Result<PublicKey> key = PublicKey::FromBytes(Bytes(hex));
    ASSERT_FALSE(key.ok()) << hex;
    EXPECT_NE(key.message().find("canonical"), std::string::npos) << key.message();
  }
}

TEST(Ed25519Load, RefusesWrongLengthAndNonPoints) {
  EXPECT_FALSE(PublicKey::FromBytes(std::string(31, '\x01')).ok());
  EXPECT_FALSE(PublicKey::FromBytes(std::string(33, '\x01')).ok());
  // Roughly half of all y values have no x on the curve; some small y must.
  int not_on_curve = 0;
  for (int y = 2; y < 40; ++y) {
    std::string raw(32, '\0');
    raw[0] = static_cast<char>(y);
    core::Result<PublicKey> key = PublicKey::FromBytes(raw);
    if (!key.ok()) {
      EXPECT_NE(key.message().find("not a point"), std::string::npos) << key.message();
      EXPECT_FALSE(VerifyRaw(raw, "m", std::string(64, '\0')));
      ++not_on_curve;
    }
  }
  EXPECT_GT(not_on_curve, 0);
}

}  // namespace
}  // namespace core::ed25519
