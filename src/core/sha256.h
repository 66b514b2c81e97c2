// SHA-256 (libsodium's crypto_hash_sha256): receipt digests, key ids, kernel
// entries, snapshot module digests, the journal's hash chain.
//
// Namespace core: see core/hex.h.
//
// Thread-safe: no shared state (a Sha256Hasher is used by one thread at a
// time). No libsodium initialisation is needed: hashing draws no randomness,
// so these run as they are in the engine's jail.
#pragma once

#include <sodium.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace core {

using Sha256Digest = std::array<uint8_t, 32>;

// The digest of `bytes`.
Sha256Digest Sha256(std::string_view bytes);
Sha256Digest Sha256(std::span<const uint8_t> bytes);

// The digest of `bytes` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);
std::string Sha256Hex(std::span<const uint8_t> bytes);

// The digest of data given in pieces (a file read in chunks, fields one by
// one): Update any number of times, then Finish once.
class Sha256Hasher {
 public:
  Sha256Hasher();
  void Update(std::string_view bytes);
  void Update(std::span<const uint8_t> bytes);
  Sha256Digest Finish();

 private:
  crypto_hash_sha256_state state_;
};

}  // namespace core
