// The core schema's resolution of plain scalars, written out by hand (no
// regular expressions: they are the tag resolution regexps of YAML 1.2
// section 10.3.2).
#include "volent/manifest/scalar.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace volent::manifest {
namespace {

bool IsDigits(std::string_view s, int base) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool digit = base == 8    ? (c >= '0' && c <= '7')
                       : base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                                    : (c >= '0' && c <= '9');
    if (!digit) return false;
  }
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsCoreFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

bool OneOf(std::string_view s, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (s == w) return true;
  }
  return false;
}

core::Error Invalid(std::string message) { return {std::move(message), core::ErrorKind::kInvalidArgument}; }

core::Result<nlohmann::json> Integer(std::string_view text, std::string_view digits, int base, bool negative) {
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  const uint64_t limit = negative ? uint64_t{1} << 63 : UINT64_MAX;
  if (ec != std::errc() || end != digits.data() + digits.size() || magnitude > limit) {
    return Invalid("the integer " + std::string(text) + " is out of range (64 bits)");
  }
  if (!negative) {
    if (magnitude <= static_cast<uint64_t>(INT64_MAX)) return nlohmann::json(static_cast<int64_t>(magnitude));
    return nlohmann::json(magnitude);
  }
  if (magnitude == uint64_t{1} << 63) return nlohmann::json(INT64_MIN);
  return nlohmann::json(-static_cast<int64_t>(magnitude));
}

}  // namespace

core::Result<nlohmann::json> ResolvePlainScalar(std::string_view s) {
  if (OneOf(s, {"", "~", "null", "Null", "NULL"})) return nlohmann::json(nullptr);
  if (OneOf(s, {"true", "True", "TRUE"})) return nlohmann::json(true);
  if (OneOf(s, {"false", "False", "FALSE"})) return nlohmann::json(false);
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && IsDigits(s.substr(2), 8)) {
    return Integer(s, s.substr(2), 8, false);
  }
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && IsDigits(s.substr(2), 16)) {
    return Integer(s, s.substr(2), 16, false);
  }
  const bool sign = !s.empty() && (s[0] == '-' || s[0] == '+');
  if (IsDigits(s.substr(sign ? 1 : 0), 10)) return Integer(s, s.substr(sign ? 1 : 0), 10, s[0] == '-');
  std::string_view unsigned_part = s.substr(sign ? 1 : 0);
  if (OneOf(unsigned_part, {".inf", ".Inf", ".INF"}) || OneOf(s, {".nan", ".NaN", ".NAN"})) {
    return Invalid("infinity and NaN are not JSON numbers; quote " + std::string(s) + " for a string");
  }
  if (IsCoreFloat(s)) {
    const std::string copy(s);
    errno = 0;
    char* end = nullptr;
    const double d = std::strtod(copy.c_str(), &end);
    if (errno == ERANGE && std::isinf(d)) return Invalid("the number " + copy + " is out of range");
    return nlohmann::json(d);
  }
  return nlohmann::json(std::string(s));
}

}  // namespace volent::manifest
