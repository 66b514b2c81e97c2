#include "volent/control/failure_limiter.h"

#include <algorithm>
#include <cmath>

namespace volent::control {

FailureLimiter::Bucket& FailureLimiter::Find(const std::string& address, int64_t now_ms,
                                             std::optional<FailureReport>& evicted) {
  auto it = buckets_.find(address);
  if (it == buckets_.end()) {
    if (buckets_.size() >= limits_.max_addresses) {
      auto idle = std::min_element(buckets_.begin(), buckets_.end(), [](const auto& a, const auto& b) {
        return a.second.refilled_ms < b.second.refilled_ms;
      });
      if (idle->second.pending.failures + idle->second.pending.refused > 0) evicted = idle->second.pending;
      buckets_.erase(idle);
    }
    Bucket fresh;
    fresh.tries = limits_.burst;
    fresh.refilled_ms = now_ms;
    fresh.pending.address = address;
    it = buckets_.emplace(address, std::move(fresh)).first;
  }
  Bucket& b = it->second;
  if (now_ms > b.refilled_ms) {
    b.tries = std::min(limits_.burst, b.tries + (now_ms - b.refilled_ms) / 1000.0 * limits_.per_second);
    b.refilled_ms = now_ms;
  }
  return b;
}

std::optional<FailureReport> FailureLimiter::TakeIfDue(Bucket& bucket, int64_t now_ms) {
  FailureReport& p = bucket.pending;
  if (p.failures + p.refused == 0) return std::nullopt;
  if (bucket.reported_ms != 0 && now_ms - bucket.reported_ms < limits_.report_every_ms) return std::nullopt;
  FailureReport out = p;
  bucket.reported_ms = now_ms;
  p = FailureReport{};
  p.address = out.address;
  return out;
}

std::optional<int> FailureLimiter::Blocked(const std::string& address, int64_t now_ms,
                                           std::optional<FailureReport>& due) {
  std::lock_guard lock(mu_);
  auto it = buckets_.find(address);
  if (it == buckets_.end()) return std::nullopt;  // never failed: not blocked, nothing stored
  std::optional<FailureReport> evicted;
  Bucket& b = Find(address, now_ms, evicted);
  if (b.tries >= 1) return std::nullopt;
  if (b.pending.failures + b.pending.refused == 0) b.pending.first_ms = now_ms;
  ++b.pending.refused;
  b.pending.last_ms = now_ms;
  due = TakeIfDue(b, now_ms);
  return std::max(1, static_cast<int>(std::ceil((1 - b.tries) / limits_.per_second)));
}

std::optional<FailureReport> FailureLimiter::Failed(const std::string& address, int64_t now_ms,
                                                    const std::string& reason) {
  std::lock_guard lock(mu_);
  std::optional<FailureReport> evicted;
  Bucket& b = Find(address, now_ms, evicted);
  b.tries = std::max(0.0, b.tries - 1);
  if (b.pending.failures + b.pending.refused == 0) b.pending.first_ms = now_ms;
  ++b.pending.failures;
  b.pending.last_ms = now_ms;
  b.pending.last_reason = reason;
  auto due = TakeIfDue(b, now_ms);
  return due ? due : evicted;
}

std::vector<FailureReport> FailureLimiter::Flush() {
  std::lock_guard lock(mu_);
  std::vector<FailureReport> out;
  for (auto& [address, b] : buckets_) {
    if (b.pending.failures + b.pending.refused == 0) continue;
    out.push_back(b.pending);
    b.pending = FailureReport{};
    b.pending.address = address;
  }
  return out;
}

}  // namespace volent::control
