// The node's Prometheus metrics (text format 0.0.4), docs/control-api.md:
// request counters per route/method/code and a summary of in-handler time
// per route over its last 8,192 requests.
//
// Thread-safe: one mutex guards all series; recording is a few map lookups.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace volent::control {

inline constexpr size_t kTimingWindow = 8192;

class Metrics {
 public:
  // `route` is a path template of the route table ("unmatched" otherwise).
  void Record(const std::string& route, const std::string& method, int code, double seconds);

  // The whole exposition; `agents` and the process's own gauges are
  // sampled by the caller / here at render time.
  std::string Render(size_t agents) const;

 private:
  struct Window {
    std::vector<float> seconds;  // ring, up to kTimingWindow
    size_t next = 0;
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, int>, uint64_t> requests_;  // GUARDED_BY(mu_)
  std::map<std::string, Window> timings_;                                    // GUARDED_BY(mu_)
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The resident set size of this process in bytes (0 if unknown).
uint64_t ResidentMemoryBytes();

}  // namespace volent::control
