#include "volent/control/metrics.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace volent::control {
namespace {

// A label value escaped per the text format (\\, \", \n).
std::string Label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string Number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

}  // namespace

uint64_t ResidentMemoryBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void Metrics::Record(const std::string& route, const std::string& method, int code, double seconds) {
  std::lock_guard lock(mu_);
  ++requests_[{route, method, code}];
  Window& w = timings_[route];
  if (w.seconds.size() < kTimingWindow) {
    w.seconds.push_back(static_cast<float>(seconds));
  } else {
    w.seconds[w.next] = static_cast<float>(seconds);
  }
  w.next = (w.next + 1) % kTimingWindow;
  ++w.count;
  w.sum += seconds;
}

std::string Metrics::Render(size_t agents) const {
  std::string out;
  out += "# HELP volent_agents Agents applied to this node.\n# TYPE volent_agents gauge\n";
  out += "volent_agents " + std::to_string(agents) + "\n";
  out += "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
         "# TYPE process_resident_memory_bytes gauge\n";
  out += "process_resident_memory_bytes " + std::to_string(ResidentMemoryBytes()) + "\n";
  double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  out += "# HELP volent_uptime_seconds Seconds since the node started.\n"
         "# TYPE volent_uptime_seconds gauge\n";
  out += "volent_uptime_seconds " + Number(uptime) + "\n";

  std::lock_guard lock(mu_);
  out += "# HELP volent_http_requests_total Requests answered, by route, method and status code.\n"
         "# TYPE volent_http_requests_total counter\n";
  for (const auto& [key, count] : requests_) {
    const auto& [route, method, code] = key;
    out += "volent_http_requests_total{route=\"" + Label(route) + "\",method=\"" + Label(method) +
           "\",code=\"" + std::to_string(code) + "\"} " + std::to_string(count) + "\n";
  }
  out += "# HELP volent_http_handler_seconds Time spent in the handler, over the last 8192 "
         "requests of each route.\n# TYPE volent_http_handler_seconds summary\n";
  for (const auto& [route, w] : timings_) {
    std::vector<float> sorted = w.seconds;
    std::sort(sorted.begin(), sorted.end());
    for (double q : {0.5, 0.9, 0.99}) {
      double value = 0;
      if (!sorted.empty()) {
        size_t index = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
        value = sorted[std::min(index, sorted.size() - 1)];
      }
      out += "volent_http_handler_seconds{route=\"" + Label(route) + "\",quantile=\"" + Number(q) +
             "\"} " + Number(value) + "\n";
    }
    out += "volent_http_handler_seconds_sum{route=\"" + Label(route) + "\"} " + Number(w.sum) + "\n";
    out += "volent_http_handler_seconds_count{route=\"" + Label(route) + "\"} " +
           std::to_string(w.count) + "\n";
  }
  return out;
}

}  // namespace volent::control
