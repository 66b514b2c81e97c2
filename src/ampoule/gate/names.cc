#include "ampoule/gate/names.h"

#include <utf8proc.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace ampoule::gate {
namespace {

std::string CodePoint(utf8proc_int32_t c) {
  char buf[16];
  snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

// Why `c` may not appear in a name, or nullptr.
const char* Refusal(utf8proc_int32_t c) {
  switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_CC: return "a control character";
    case UTF8PROC_CATEGORY_CF:
      return "an invisible format character (zero-width space or joiner, byte order mark, "
             "direction mark, embedding, override or isolate)";
    case UTF8PROC_CATEGORY_ZL: return "a line separator";
    case UTF8PROC_CATEGORY_ZP: return "a paragraph separator";
    case UTF8PROC_CATEGORY_ZS: return c == ' ' ? nullptr : "a space other than U+0020, which looks like one";
    case UTF8PROC_CATEGORY_CS: return "a surrogate";
    case UTF8PROC_CATEGORY_CO: return "a private-use character";
    case UTF8PROC_CATEGORY_CN: return "an unassigned code point";
    default: return nullptr;
  }
}

}  // namespace

core::Result<std::string> NormaliseName(std::string_view text, std::string_view what) {
  const std::string where(what);
  if (text.empty()) return core::Error{where + " is empty"};
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto length = static_cast<utf8proc_ssize_t>(text.size());
  // Checked before normalising so that the error points at what was sent.
  for (utf8proc_ssize_t at = 0; at < length;) {
    utf8proc_int32_t c = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(bytes + at, length - at, &c);
    if (n <= 0) return core::Error{where + " is not valid UTF-8 (at byte " + std::to_string(at + 1) + ")"};
    at += n;
  }
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t mapped_length =
      utf8proc_map(bytes, length, &mapped, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::unique_ptr<utf8proc_uint8_t, decltype(&free)> owned(mapped, &free);
  if (mapped_length < 0) return core::Error{where + " cannot be normalised: " + utf8proc_errmsg(mapped_length)};
  std::string nfc(reinterpret_cast<const char*>(mapped), static_cast<size_t>(mapped_length));

  size_t count = 0;
  utf8proc_int32_t last = 0;
  for (utf8proc_ssize_t at = 0; at < mapped_length;) {
    utf8proc_int32_t c = 0;
    at += utf8proc_iterate(mapped + at, mapped_length - at, &c);
    ++count;
    if (const char* why = Refusal(c)) {
      return core::Error{where + " holds " + CodePoint(c) + ", " + why + ", at code point " + std::to_string(count) +
                   ": names must be visible text"};
    }
    if (count == 1 && c == ' ') return core::Error{where + " starts with a space: remove it (names are not trimmed)"};
    last = c;
  }
  if (last == ' ') return core::Error{where + " ends with a space: remove it (names are not trimmed)"};
  if (count > kMaxNameCodePoints) {
    return core::Error{where + " is " + std::to_string(count) + " code points long (in NFC); at most " +
                 std::to_string(kMaxNameCodePoints) + " code points"};
  }
  return nfc;
}

}  // namespace ampoule::gate
