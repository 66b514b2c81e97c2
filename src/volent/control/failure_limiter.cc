#include "volent/control/failure_limiter.h"

#include <algorithm>
#include <cmath>

namespace volent::control {
namespace {

void Refill(double& tries, int64_t& refilled_ms, int64_t now_ms, double burst, double per_second) {
  if (now_ms > refilled_ms) {
    tries = std::min(burst, tries + (now_ms - refilled_ms) / 1000.0 * per_second);
    refilled_ms = now_ms;
  }
}

int WaitSeconds(double tries, double per_second) {
  return std::max(1, static_cast<int>(std::ceil((1 - tries) / per_second)));
}

}  // namespace

FailureLimiter::FailureLimiter(FailureLimits limits)
    : limits_(limits),
      addresses_(limits.burst, limits.per_second, limits.max_addresses),
      ids_(limits.id_burst, limits.id_per_second, limits.max_addresses) {
  global_.tries = limits_.global_burst;
}

void FailureLimiter::Table::Refill(Bucket& b, int64_t now_ms) const {
  ::volent::control::Refill(b.tries, b.refilled_ms, now_ms, burst_, per_second_);
}

int FailureLimiter::Table::Wait(const Bucket& b) const { return WaitSeconds(b.tries, per_second_); }

FailureLimiter::Bucket* FailureLimiter::Table::Find(const std::string& name, int64_t now_ms) {
  auto it = index_.find(name);
  if (it == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);
  Bucket& b = it->second->second;
  Refill(b, now_ms);
  return &b;
}

FailureLimiter::Bucket& FailureLimiter::Table::Get(const std::string& name, int64_t now_ms, bool& forgot) {
  if (Bucket* b = Find(name, now_ms)) return *b;
  if (capacity_ > 0 && order_.size() >= capacity_) {
    // The one used longest ago; its counts are already in the totals.
    const Bucket& last = order_.back().second;
    forgot = last.pending.failures + last.pending.refused > 0;
    index_.erase(order_.back().first);
    order_.pop_back();
  }
  Bucket fresh;
  fresh.tries = burst_;
  fresh.refilled_ms = now_ms;
  fresh.pending.name = name;
  order_.emplace_front(name, std::move(fresh));
  index_[name] = order_.begin();
  return order_.front().second;
}

std::vector<FailureCount> FailureLimiter::Table::TakeTop(size_t n, uint64_t& with_counts) {
  std::vector<FailureCount> all;
  for (auto& [name, b] : order_) {
    if (b.pending.failures + b.pending.refused == 0) continue;
    all.push_back(b.pending);
    b.pending.failures = b.pending.refused = 0;
  }
  with_counts = all.size();
  auto heavier = [](const FailureCount& a, const FailureCount& b) {
    uint64_t x = a.failures + a.refused, y = b.failures + b.refused;
    return x != y ? x > y : a.name < b.name;
  };
  if (all.size() > n) {
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(), heavier);
    all.resize(n);
  } else {
    std::sort(all.begin(), all.end(), heavier);
  }
  return all;
}

void FailureLimiter::Count(Bucket& b, bool failure) {
  ++(failure ? b.pending.failures : b.pending.refused);
}

std::optional<int> FailureLimiter::Blocked(const std::string& address, const std::string& id, int64_t now_ms) {
  std::lock_guard lock(mu_);
  int wait = 0;
  Refill(global_.tries, global_.refilled_ms, now_ms, limits_.global_burst, limits_.global_per_second);
  if (global_.tries < 1) wait = std::max(wait, WaitSeconds(global_.tries, limits_.global_per_second));
  // Addresses and ids that never failed are not stored: looking costs nothing.
  Bucket* from = addresses_.Find(address, now_ms);
  if (from && from->tries < 1) wait = std::max(wait, addresses_.Wait(*from));
  Bucket* named = id.empty() ? nullptr : ids_.Find(id, now_ms);
  if (named && named->tries < 1) wait = std::max(wait, ids_.Wait(*named));
  if (wait == 0) return std::nullopt;
  bool forgot = false;
  Count(addresses_.Get(address, now_ms, forgot), false);
  if (forgot) ++forgotten_;
  if (!id.empty()) {
    bool ignored = false;
    Count(ids_.Get(id, now_ms, ignored), false);
  }
  if (pending_.failures + pending_.refused == 0) pending_.first_ms = now_ms;
  ++pending_.refused;
  pending_.last_ms = now_ms;
  return wait;
}

void FailureLimiter::Failed(const std::string& address, const std::string& id, int64_t now_ms,
                            const std::string& reason) {
  std::lock_guard lock(mu_);
  Refill(global_.tries, global_.refilled_ms, now_ms, limits_.global_burst, limits_.global_per_second);
  global_.tries = std::max(0.0, global_.tries - 1);
  bool forgot = false;
  Bucket& from = addresses_.Get(address, now_ms, forgot);
  if (forgot) ++forgotten_;
  from.tries = std::max(0.0, from.tries - 1);
  Count(from, true);
  if (!id.empty()) {
    bool ignored = false;
    Bucket& named = ids_.Get(id, now_ms, ignored);
    named.tries = std::max(0.0, named.tries - 1);
    Count(named, true);
  }
  if (pending_.failures + pending_.refused == 0) pending_.first_ms = now_ms;
  ++pending_.failures;
  pending_.last_ms = now_ms;
  pending_.last_reason = reason;
}

std::optional<FailureReport> FailureLimiter::Take(int64_t now_ms) {
  if (pending_.failures + pending_.refused == 0) return std::nullopt;
  FailureReport out = pending_;
  uint64_t remembered = 0, ignored = 0;
  out.top_addresses = addresses_.TakeTop(limits_.report_top, remembered);
  out.top_ids = ids_.TakeTop(limits_.report_top, ignored);
  out.addresses = remembered + forgotten_;
  forgotten_ = 0;
  pending_ = FailureReport{};
  reported_ms_ = now_ms;
  return out;
}

std::optional<FailureReport> FailureLimiter::TakeDue(int64_t now_ms) {
  std::lock_guard lock(mu_);
  if (reported_ms_ >= 0 && now_ms - reported_ms_ < limits_.report_every_ms) return std::nullopt;
  return Take(now_ms);
}

std::optional<FailureReport> FailureLimiter::Flush() {
  std::lock_guard lock(mu_);
  return Take(reported_ms_ < 0 ? 0 : reported_ms_);
}

}  // namespace volent::control
