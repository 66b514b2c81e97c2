#include "core/hex.h"

namespace core {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string HexEncode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

std::string HexEncode(std::span<const uint8_t> bytes) {
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

Result<std::string> HexDecode(std::string_view text, std::string_view what) {
  if (text.size() % 2 != 0) {
    return Error{std::string(what) + ": hex has an odd number of digits", ErrorKind::kInvalidArgument};
  }
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    int high = DigitValue(text[i]);
    int low = DigitValue(text[i + 1]);
    if (high < 0 || low < 0) return Error{std::string(what) + ": not valid hex", ErrorKind::kInvalidArgument};
    out.push_back(static_cast<char>(high << 4 | low));
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

}  // namespace core
