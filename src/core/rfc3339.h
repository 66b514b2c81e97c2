// Instants as RFC 3339 text in UTC, the one formatter of the project's
// records (run records, attestation reports, the API's times, the agent
// store): "2026-12-04T17:58:11Z", or with milliseconds
// "2026-12-04T17:58:11.042Z".
//
// Pure arithmetic on the proleptic Gregorian calendar (no gmtime, no
// locale, no time zone file): the same text on every host and in the
// engine. Thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace core {

// Milliseconds since 1970-01-01T00:00:00Z, now (the realtime clock).
int64_t UnixMillisNow();

// `unix_ms` as "YYYY-MM-DDTHH:MM:SS.mmmZ". An instant before year 0 or
// after year 9999 is clamped to the first or last one four digits can say.
std::string Rfc3339Millis(int64_t unix_ms);

// `unix_seconds` as "YYYY-MM-DDTHH:MM:SSZ", clamped as Rfc3339Millis.
std::string Rfc3339Seconds(int64_t unix_seconds);

}  // namespace core
