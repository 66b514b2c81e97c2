#include "core/sha256.h"

#include "core/hex.h"

namespace core {

Sha256Digest Sha256(std::span<const uint8_t> bytes) {
  Sha256Digest out{};
  crypto_hash_sha256(out.data(), bytes.data(), bytes.size());
  return out;
}

Sha256Digest Sha256(std::string_view bytes) {
  return Sha256(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

std::string Sha256Hex(std::span<const uint8_t> bytes) { return HexEncode(Sha256(bytes)); }

std::string Sha256Hex(std::string_view bytes) { return HexEncode(Sha256(bytes)); }

Sha256Hasher::Sha256Hasher() { crypto_hash_sha256_init(&state_); }

void Sha256Hasher::Update(std::span<const uint8_t> bytes) {
  crypto_hash_sha256_update(&state_, bytes.data(), bytes.size());
}

void Sha256Hasher::Update(std::string_view bytes) {
  Update(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

Sha256Digest Sha256Hasher::Finish() {
  Sha256Digest out{};
  crypto_hash_sha256_final(&state_, out.data());
  return out;
}

}  // namespace core
