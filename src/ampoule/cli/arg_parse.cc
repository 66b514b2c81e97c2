#include "ampoule/cli/arg_parse.h"

#include <cstdlib>
#include <string>

namespace ampoule::cli {

bool ParseU64(std::string_view text, uint64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = uint64_t(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

bool ParseBytes(std::string_view text, uint64_t* out) {
  int shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k': shift = 10; break;
      case 'M':
      case 'm': shift = 20; break;
      case 'G':
      case 'g': shift = 30; break;
    }
    if (shift != 0) text.remove_suffix(1);
  }
  uint64_t v = 0;
  if (!ParseU64(text, &v) || v > (UINT64_MAX >> shift)) return false;
  *out = v << shift;
  return true;
}

bool ParseSeconds(std::string_view text, double* out) {
  if (text.empty() || text.size() > 32) return false;
  for (char c : text) {
    if (!(c >= '0' && c <= '9') && c != '.') return false;
  }
  std::string s(text);
  char* end = nullptr;
  double v = strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !(v > 0) || v > 86400) return false;
  *out = v;
  return true;
}

}  // namespace ampoule::cli
