#include "volent/agent/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace volent::agent {
namespace {

struct Armed {
  std::string point;  // "" when disarmed
  long long at = 0;
  std::atomic<long long> reached{0};
};

Armed& Load() {
  static Armed* armed = [] {
    auto* a = new Armed;
    const char* spec = std::getenv(kCrashEnv);
    if (!spec || !*spec) return a;
    std::string_view text(spec);
    size_t colon = text.rfind(':');
    long long n = 0;
    if (colon != std::string_view::npos) {
      auto [end, ec] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), n);
      if (ec != std::errc() || end != text.data() + text.size()) n = 0;
    }
    if (colon == std::string_view::npos || n < 1) {
      std::fprintf(stderr, "volent: ignoring %s=%s (expected POINT:N with N >= 1)\n", kCrashEnv, spec);
      return a;
    }
    a->point = std::string(text.substr(0, colon));
    a->at = n;
    std::fprintf(stderr, "volent: %s set: crashing at %s #%lld (a test of crash safety)\n", kCrashEnv,
                 a->point.c_str(), n);
    return a;
  }();
  return *armed;
}

}  // namespace

void CrashPoint(std::string_view point) {
  Armed& armed = Load();
  if (armed.point.empty() || armed.point != point) return;
  if (armed.reached.fetch_add(1) + 1 == armed.at) {
    std::fprintf(stderr, "volent: crash point %s #%lld reached: SIGKILL\n", armed.point.c_str(), armed.at);
    std::fflush(stderr);
    kill(getpid(), SIGKILL);
  }
}

}  // namespace volent::agent
