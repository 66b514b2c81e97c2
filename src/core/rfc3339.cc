#include "core/rfc3339.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace core {
namespace {

// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z in Unix ms: what
// four year digits can say.
constexpr int64_t kMinMs = -62167219200000;
constexpr int64_t kMaxMs = 253402300799999;

// The proleptic Gregorian date of `days` since 1970-01-01 (H. Hinnant's
// days-to-civil algorithm; exact for every day in range).
void CivilFromDays(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
}

// Floor division and its remainder (the remainder is never negative).
int64_t FloorDiv(int64_t a, int64_t b, int64_t& rem) {
  int64_t q = a / b;
  rem = a % b;
  if (rem < 0) {
    rem += b;
    --q;
  }
  return q;
}

std::string Format(int64_t unix_ms, bool millis) {
  unix_ms = std::clamp(unix_ms, kMinMs, kMaxMs);
  int64_t ms_of_day = 0;
  const int64_t days = FloorDiv(unix_ms, 86400000, ms_of_day);
  int64_t year = 0;
  unsigned month = 0, day = 0;
  CivilFromDays(days, year, month, day);
  const auto seconds_of_day = static_cast<unsigned>(ms_of_day / 1000);
  char out[32];
  int n = std::snprintf(out, sizeof out, "%04u-%02u-%02uT%02u:%02u:%02u", static_cast<unsigned>(year), month, day,
                        seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60);
  if (millis) {
    std::snprintf(out + n, sizeof out - size_t(n), ".%03uZ", static_cast<unsigned>(ms_of_day % 1000));
  } else {
    std::snprintf(out + n, sizeof out - size_t(n), "Z");
  }
  return out;
}

}  // namespace

int64_t UnixMillisNow() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string Rfc3339Millis(int64_t unix_ms) { return Format(unix_ms, true); }

std::string Rfc3339Seconds(int64_t unix_seconds) {
  return Format(std::clamp(unix_seconds, kMinMs / 1000, kMaxMs / 1000) * 1000, false);
}

}  // namespace core
