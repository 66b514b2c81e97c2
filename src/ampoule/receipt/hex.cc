#include "ampoule/receipt/hex.h"

#include <sodium.h>

#include "ampoule/receipt/sodium_init.h"

namespace ampoule::receipt {

std::string HexEncode(std::string_view bytes) {
  EnsureSodium();
  std::string out(bytes.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                 bytes.size());
  out.pop_back();  // the terminating NUL
  return out;
}

Result<std::string> HexDecode(std::string_view text, std::string_view what) {
  EnsureSodium();
  if (text.size() % 2 != 0) {
    return Error{std::string(what) + ": hex has an odd number of digits"};
  }
  std::string out(text.size() / 2, '\0');
  size_t out_len = 0;
  if (sodium_hex2bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                     text.size(), nullptr, &out_len, nullptr) != 0 ||
      out_len != out.size()) {
    return Error{std::string(what) + ": not valid hex"};
  }
  return out;
}

bool IsLowerHex(std::string_view text, size_t bytes) {
  if (text.size() != bytes * 2) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string Sha256Hex(std::string_view bytes) {
  EnsureSodium();
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

}  // namespace ampoule::receipt
