#include "core/rfc3339.h"

#include <gtest/gtest.h>

#include <climits>
#include <ctime>

namespace core {
namespace {

TEST(Rfc3339, WithMilliseconds) {
  EXPECT_EQ(Rfc3339Millis(1796004067123), "2026-11-30T02:01:07.123Z");
  EXPECT_EQ(Rfc3339Millis(1), "1970-01-01T00:00:00.001Z");
  EXPECT_EQ(Rfc3339Millis(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(Rfc3339Millis(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(Rfc3339Millis(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(Rfc3339Millis(INT64_MAX), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(Rfc3339Millis(INT64_MIN), "0000-01-01T00:00:00.000Z");
}

TEST(Rfc3339, WithSeconds) {
  EXPECT_EQ(Rfc3339Seconds(1795939200), "2026-11-29T08:00:00Z");
  EXPECT_EQ(Rfc3339Seconds(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Rfc3339Seconds(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(Rfc3339Seconds(INT64_MAX), "9999-12-31T23:59:59Z");
  EXPECT_EQ(Rfc3339Seconds(INT64_MIN), "0000-01-01T00:00:00Z");
}

// The arithmetic agrees with the C library's calendar, day by day over
// four centuries (leap years and the century rules included).
TEST(Rfc3339, AgreesWithGmtime) {
  for (int64_t t = -2208988800; t < 10413792000; t += 86400 * 7 + 3671) {
    const time_t c = static_cast<time_t>(t);
    std::tm utc{};
    gmtime_r(&c, &utc);
    char expected[32];
    strftime(expected, sizeof expected, "%Y-%m-%dT%H:%M:%SZ", &utc);
    ASSERT_EQ(Rfc3339Seconds(t), expected) << t;
  }
}

// Milliseconds, not seconds: 2020-09-13 was 1.6e12 of them.
TEST(Rfc3339, NowCountsMilliseconds) { EXPECT_GT(UnixMillisNow(), int64_t{1600000000000}); }

}  // namespace
}  // namespace core
