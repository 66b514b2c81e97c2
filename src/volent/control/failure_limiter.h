// Failed authentications, counted and limited
// (docs/decisions/0040-control-api-authentication.md, "Brute force";
// docs/decisions/0048-operators-door.md).
//
// Three token buckets, each of a few tries refilled over time, each failed
// authentication taking one from all that apply: the client address's, the
// credential id's (a token's public id part, whether or not a credential
// has it, so known and unknown ids are limited alike), and one for all
// addresses together (so many addresses cannot add up to many tries). A
// request whose limits have less than one try left is blocked: the
// Authenticator answers it 429 with Retry-After -- unless it carries a valid
// credential, which is never refused for the failures of others.
//
// What the journal gets is one summary for all addresses per `report_every`:
// the exact totals of failures and refusals since the previous one (every
// one counted, also those of addresses forgotten since), and the addresses
// and ids that failed most. A flood of failures from any number of
// addresses writes at most one entry per interval. Flush hands over what
// is left (at a stop).
//
// Memory is bounded: at most `max_addresses` addresses and as many ids are
// remembered; a new one when full forgets the one idle longest (its counts
// stay in the totals).
//
// Thread-safe: one mutex.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace volent::control {

struct FailureLimits {
  double burst = 10;        // per address
  double per_second = 0.5;  // one try back every two seconds
  int64_t report_every_ms = 60'000;
  size_t max_addresses = 4096;  // and as many credential ids
  double id_burst = 10;         // per credential id
  double id_per_second = 0.5;
  // All addresses together: far more than a node's own clients ever get
  // wrong, far less than a flood from many addresses.
  double global_burst = 1000;
  double global_per_second = 20;
  size_t report_top = 10;  // addresses and ids named in a report
};

// One address's or id's share of a report.
struct FailureCount {
  std::string name;  // the address ("" for in-process callers) or the credential id
  uint64_t failures = 0;
  uint64_t refused = 0;
};

// Every failure and refusal since the previous report.
struct FailureReport {
  uint64_t failures = 0;   // credentials presented and found wrong
  uint64_t refused = 0;    // requests refused (429) while a limit was reached
  uint64_t addresses = 0;  // addresses they came from (one forgotten and seen again counts twice)
  int64_t first_ms = 0;    // the first of them
  int64_t last_ms = 0;     // the last
  std::string last_reason;  // why the last failure failed (never a secret)
  std::vector<FailureCount> top_addresses;  // most failures + refusals first, at most report_top
  std::vector<FailureCount> top_ids;
};

class FailureLimiter {
 public:
  explicit FailureLimiter(FailureLimits limits = {});

  // Whether a failed or absent credential from `address` (naming
  // credential `id`, or "") is to be refused at `now_ms`: the whole seconds
  // to wait (>= 1), and the refusal is counted; else nothing. Never asked
  // for a valid credential.
  std::optional<int> Blocked(const std::string& address, const std::string& id, int64_t now_ms);
  // Counts a failure.
  void Failed(const std::string& address, const std::string& id, int64_t now_ms, const std::string& reason);
  // The summary, when there is something to report and the previous one is
  // report_every old (the first one at once).
  std::optional<FailureReport> TakeDue(int64_t now_ms);
  // Everything not reported yet (at a stop), if anything.
  std::optional<FailureReport> Flush();

 private:
  struct Bucket {
    double tries = 0;
    int64_t refilled_ms = 0;
    FailureCount pending;
  };
  // Buckets by name, the one used longest ago forgotten first.
  class Table {
   public:
    Table(double burst, double per_second, size_t capacity)
        : burst_(burst), per_second_(per_second), capacity_(capacity) {}
    // The bucket, refilled to now; made (full) if new, `forgot` set when one
    // with pending counts was forgotten for it.
    Bucket& Get(const std::string& name, int64_t now_ms, bool& forgot);
    Bucket* Find(const std::string& name, int64_t now_ms);  // refilled; null if unknown
    std::vector<FailureCount> TakeTop(size_t n, uint64_t& with_counts);
    int Wait(const Bucket& b) const;  // seconds until one try is back

   private:
    void Refill(Bucket& b, int64_t now_ms) const;
    using Order = std::list<std::pair<std::string, Bucket>>;
    const double burst_, per_second_;
    const size_t capacity_;
    Order order_;  // most recently used first
    std::unordered_map<std::string, Order::iterator> index_;
  };

  void Count(Bucket& b, bool failure);
  std::optional<FailureReport> Take(int64_t now_ms);

  const FailureLimits limits_;
  std::mutex mu_;  // guards everything below
  Table addresses_;
  Table ids_;
  Bucket global_;
  FailureReport pending_;       // the totals since the previous report
  uint64_t forgotten_ = 0;      // addresses with pending counts forgotten since
  int64_t reported_ms_ = -1;    // -1: never reported
};

}  // namespace volent::control
