// Ed25519 keys and signatures (receipts, signed tools, approvals), over libsodium.
//
// "Strict" verification here means: accept exactly what libsodium's
// crypto_sign_verify_detached accepts. That rejects non-canonical S (S >= L),
// small-order R, non-canonical and small-order public keys, and signatures
// of any length but 64 bytes (see docs/receipt-spec.md section 3, "Keys",
// and docs/decisions/0008-receipts.md).
//
// On top of that, a public key is checked when it is *loaded*: a key that
// could never verify anything (not a canonical encoding, not a curve point,
// or of small order, the "weak" keys) is refused with an error, so a user
// who names such a key hears about it instead of getting FAILED for every
// receipt. The load check refuses exactly the keys that
// crypto_sign_verify_detached refuses for every signature, so loading never
// changes a verdict.
//
// Thread-safe: keys are immutable values; signing and verifying use no
// shared state.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "core/result.h"

namespace core::ed25519 {

inline constexpr size_t kPublicKeyBytes = 32;
inline constexpr size_t kSeedBytes = 32;
inline constexpr size_t kSignatureBytes = 64;

class PublicKey {
 public:
  // Loads a raw 32-byte key. Returns an error if it has the wrong length, is
  // not a canonical encoding of a curve point, or has small order.
  static core::Result<PublicKey> FromBytes(std::string_view raw);

  // The raw 32 bytes.
  std::string_view raw() const {
    return std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
  }
  const unsigned char* data() const { return bytes_.data(); }

  // The key id written into envelopes: lowercase hex SHA-256 of the raw 32
  // bytes (64 characters). A hint for choosing a key, never a trust decision.
  std::string KeyId() const;

  bool operator==(const PublicKey&) const = default;

 private:
  PublicKey() = default;
  std::array<unsigned char, kPublicKeyBytes> bytes_{};
};

// A signing key: the 32-byte seed and the public key derived from it. Move
// only; the secret bytes are wiped when the object dies.
class SecretKey {
 public:
  // A fresh key from the operating system's random source.
  static SecretKey Generate();
  // The key for a 32-byte seed (RFC 8032 private key). Error on wrong length.
  static core::Result<SecretKey> FromSeed(std::string_view seed);

  SecretKey(SecretKey&& other) noexcept;
  SecretKey& operator=(SecretKey&& other) noexcept;
  SecretKey(const SecretKey&) = delete;
  SecretKey& operator=(const SecretKey&) = delete;
  ~SecretKey();

  const PublicKey& public_key() const { return public_key_; }
  // The 32-byte seed, for writing the key file. Valid while *this lives.
  std::string_view seed() const {
    return std::string_view(reinterpret_cast<const char*>(secret_.data()), kSeedBytes);
  }
  // Returns the 64-byte Ed25519 signature of `message`.
  std::string Sign(std::string_view message) const;

 private:
  SecretKey(const std::array<unsigned char, 64>& secret, PublicKey public_key);
  std::array<unsigned char, 64> secret_{};  // libsodium layout: seed || public key
  PublicKey public_key_;
};

// True if `signature` is a valid Ed25519 signature of `message` by `key`,
// under the strict rules above. Any length but 64 bytes is false.
bool Verify(const PublicKey& key, std::string_view message, std::string_view signature);

// The bare libsodium verdict for a raw 32-byte key, with no load check; for
// conformance tests that compare the two paths. Wrong lengths are false.
bool VerifyRaw(std::string_view raw_key, std::string_view message, std::string_view signature);

}  // namespace core::ed25519
