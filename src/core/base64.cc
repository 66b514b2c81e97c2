#include "core/base64.h"

#include <sodium.h>

#include "core/sodium_init.h"

namespace core {
namespace {

// Picks libsodium's variant from the text itself: the URL-safe alphabet if
// it uses '-' or '_', the standard one if it uses '+' or '/', and padding if
// it ends in '='. Text using both alphabets fits no variant.
core::Result<int> DetectVariant(std::string_view text, std::string_view what) {
  bool standard = text.find_first_of("+/") != std::string_view::npos;
  bool url_safe = text.find_first_of("-_") != std::string_view::npos;
  if (standard && url_safe) {
    return core::Error{std::string(what) +
                 ": base64 mixes the standard (+/) and URL-safe (-_) alphabets"};
  }
  bool padded = !text.empty() && text.back() == '=';
  if (url_safe) {
    return padded ? sodium_base64_VARIANT_URLSAFE : sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  }
  return padded ? sodium_base64_VARIANT_ORIGINAL : sodium_base64_VARIANT_ORIGINAL_NO_PADDING;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  EnsureSodium();
  const int variant = sodium_base64_VARIANT_ORIGINAL;
  std::string out(sodium_base64_encoded_len(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), variant);
  out.resize(out.size() - 1);  // sodium counts the terminating NUL
  return out;
}

core::Result<std::string> Base64Decode(std::string_view text, std::string_view what) {
  EnsureSodium();
  core::Result<int> variant = DetectVariant(text, what);
  if (!variant.ok()) return variant.error();
  std::string out(text.size() / 4 * 3 + 3, '\0');
  size_t out_len = 0;
  // A null `b64_end` makes libsodium fail unless every character was used;
  // a null `ignore` admits no whitespace.
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &out_len, nullptr, *variant) != 0) {
    return core::Error{std::string(what) + ": not valid base64 (standard or URL-safe alphabet expected)"};
  }
  out.resize(out_len);
  return out;
}

}  // namespace core
