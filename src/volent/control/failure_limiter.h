// Failed authentications, counted per client address: a token bucket that
// lets a few mistakes through and then refuses the address for a while
// (docs/decisions/0040-control-api-authentication.md, "Brute force").
//
// Each address has a bucket of `burst` tries, refilled at `per_second`;
// every failed authentication takes one. An address with less than one
// try left is blocked: every request from it is refused (429, Retry-After)
// before its credential is looked at, so a correct guess is not told apart
// from a wrong one while blocked.
//
// What the journal gets is aggregated: at most one report per address per
// `report_every`, counting the failures and refusals since the previous
// one, so a flood cannot flood the journal. Flush hands over what is left.
//
// Memory is bounded: at most `max_addresses` buckets; a new address when
// full evicts the one idle longest (its counts are reported first).
//
// Thread-safe: one mutex.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace volent::control {

struct FailureLimits {
  double burst = 10;
  double per_second = 0.5;  // one try back every two seconds
  int64_t report_every_ms = 60'000;
  size_t max_addresses = 4096;
};

// Failures of one address since its previous report.
struct FailureReport {
  std::string address;
  uint64_t failures = 0;   // credentials presented and found wrong
  uint64_t refused = 0;    // requests refused while blocked
  int64_t first_ms = 0;    // the first of them
  int64_t last_ms = 0;     // the last
  std::string last_reason; // why the last failure failed (never a secret)
};

class FailureLimiter {
 public:
  explicit FailureLimiter(FailureLimits limits = {}) : limits_(limits) {}

  // When `address` is blocked at `now_ms`: the whole seconds to wait (>= 1),
  // and the refusal is counted; else nothing. A report may be due (`due`).
  std::optional<int> Blocked(const std::string& address, int64_t now_ms, std::optional<FailureReport>& due);
  // Counts a failure of `address`; a report when one is due.
  std::optional<FailureReport> Failed(const std::string& address, int64_t now_ms, const std::string& reason);
  // Every count not reported yet (at a stop).
  std::vector<FailureReport> Flush();

 private:
  struct Bucket {
    double tries = 0;
    int64_t refilled_ms = 0;
    int64_t reported_ms = 0;  // 0: never reported
    FailureReport pending;
  };
  Bucket& Find(const std::string& address, int64_t now_ms, std::optional<FailureReport>& evicted);
  std::optional<FailureReport> TakeIfDue(Bucket& bucket, int64_t now_ms);

  const FailureLimits limits_;
  std::mutex mu_;  // guards buckets_
  std::map<std::string, Bucket, std::less<>> buckets_;
};

}  // namespace volent::control
