#include "core/ed25519.h"

#include <sodium.h>

#include <cstring>

#include "core/sha256.h"
#include "core/sodium_init.h"

namespace core::ed25519 {
namespace {

// True if the 255-bit y coordinate is below p = 2^255 - 19, i.e. the
// encoding is canonical. The top bit is the sign of x and is not part of y.
bool IsCanonicalEncoding(const unsigned char* s) {
  if ((s[31] & 0x7f) != 0x7f) return true;
  for (int i = 30; i > 0; --i) {
    if (s[i] != 0xff) return true;
  }
  return s[0] < 0xed;  // p's low byte
}

// True if `s` decodes to a curve point P with 8P the identity, i.e. P lies
// in the small (torsion) subgroup. Doubling three times through libsodium's
// public point addition avoids keeping a list of the eight encodings here.
// Returns false (not small order) for encodings that do not decode; the
// caller rejects those separately.
bool HasSmallOrder(const unsigned char* s) {
  unsigned char p[32], q[32];
  std::memcpy(p, s, 32);
  for (int i = 0; i < 3; ++i) {
    if (crypto_core_ed25519_add(q, p, p) != 0) return false;
    std::memcpy(p, q, 32);
  }
  static const unsigned char kIdentity[32] = {1};
  return std::memcmp(p, kIdentity, 32) == 0;
}

// True if `s` decodes to a point on the curve. Addition decodes both
// operands and fails on anything that is not a curve point.
bool IsCurvePoint(const unsigned char* s) {
  unsigned char sum[32];
  return crypto_core_ed25519_add(sum, s, s) == 0;
}

}  // namespace

core::Result<PublicKey> PublicKey::FromBytes(std::string_view raw) {
  EnsureSodium();
  if (raw.size() != kPublicKeyBytes) {
    return core::Error{"Ed25519 public key must be 32 bytes, got " + std::to_string(raw.size())};
  }
  PublicKey key;
  std::memcpy(key.bytes_.data(), raw.data(), kPublicKeyBytes);
  if (!IsCanonicalEncoding(key.data())) {
    return core::Error{"Ed25519 public key is not canonically encoded (y >= 2^255-19); refusing it"};
  }
  if (!IsCurvePoint(key.data())) {
    return core::Error{"Ed25519 public key is not a point on the curve; refusing it"};
  }
  if (HasSmallOrder(key.data())) {
    return core::Error{"Ed25519 public key is a weak (small-order) key that anyone can forge for; "
                 "refusing it"};
  }
  return key;
}

std::string PublicKey::KeyId() const { return core::Sha256Hex(raw()); }

SecretKey::SecretKey(const std::array<unsigned char, 64>& secret, PublicKey public_key)
    : secret_(secret), public_key_(public_key) {}

SecretKey SecretKey::Generate() {
  EnsureSodium();
  unsigned char seed[kSeedBytes];
  randombytes_buf(seed, sizeof seed);
  core::Result<SecretKey> key =
      FromSeed(std::string_view(reinterpret_cast<const char*>(seed), sizeof seed));
  sodium_memzero(seed, sizeof seed);
  return std::move(key).value();  // a 32-byte seed always gives a key
}

core::Result<SecretKey> SecretKey::FromSeed(std::string_view seed) {
  EnsureSodium();
  if (seed.size() != kSeedBytes) {
    return core::Error{"Ed25519 seed must be 32 bytes, got " + std::to_string(seed.size())};
  }
  std::array<unsigned char, 64> secret;
  unsigned char pk[kPublicKeyBytes];
  crypto_sign_seed_keypair(pk, secret.data(), reinterpret_cast<const unsigned char*>(seed.data()));
  core::Result<PublicKey> public_key =
      PublicKey::FromBytes(std::string_view(reinterpret_cast<const char*>(pk), sizeof pk));
  if (!public_key.ok()) {  // cannot happen for a derived key; checked anyway
    sodium_memzero(secret.data(), secret.size());
    return public_key.error();
  }
  SecretKey key(secret, *public_key);
  sodium_memzero(secret.data(), secret.size());
  return key;
}

SecretKey::SecretKey(SecretKey&& other) noexcept
    : secret_(other.secret_), public_key_(other.public_key_) {
  sodium_memzero(other.secret_.data(), other.secret_.size());
}

SecretKey& SecretKey::operator=(SecretKey&& other) noexcept {
  if (this != &other) {
    secret_ = other.secret_;
    public_key_ = other.public_key_;
    sodium_memzero(other.secret_.data(), other.secret_.size());
  }
  return *this;
}

SecretKey::~SecretKey() { sodium_memzero(secret_.data(), secret_.size()); }

std::string SecretKey::Sign(std::string_view message) const {
  std::string sig(kSignatureBytes, '\0');
  crypto_sign_detached(reinterpret_cast<unsigned char*>(sig.data()), nullptr,
                       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                       secret_.data());
  return sig;
}

bool Verify(const PublicKey& key, std::string_view message, std::string_view signature) {
  return VerifyRaw(key.raw(), message, signature);
}

bool VerifyRaw(std::string_view raw_key, std::string_view message, std::string_view signature) {
  EnsureSodium();
  if (raw_key.size() != kPublicKeyBytes || signature.size() != kSignatureBytes) return false;
  return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(signature.data()),
                                     reinterpret_cast<const unsigned char*>(message.data()),
                                     message.size(),
                                     reinterpret_cast<const unsigned char*>(raw_key.data())) == 0;
}

}  // namespace core::ed25519
