#include "core/crash_point.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace core {
namespace {

struct Armed {
  std::string point;  // "" when disarmed
  long long at = 0;
  std::atomic<long long> reached{0};
};

// POINT or POINT:N from `env`, read once.
Armed* Load(const char* env) {
  auto* a = new Armed;
  const char* spec = std::getenv(env);
  if (!spec || !*spec) return a;
  std::string_view text(spec);
  long long n = 1;
  const size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    auto [end, ec] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 1) {
      std::fprintf(stderr, "%s: ignoring %s=%s (expected POINT or POINT:N with N >= 1)\n",
                   program_invocation_short_name, env, spec);
      return a;
    }
    text = text.substr(0, colon);
  }
  a->point = std::string(text);
  a->at = n;
  std::fprintf(stderr, "%s: %s set: crashing at %s #%lld (a test of crash safety)\n", program_invocation_short_name,
               env, a->point.c_str(), n);
  return a;
}

}  // namespace

void CrashPoint(const char* env, std::string_view point) {
  static std::mutex mu;
  static std::map<std::string, Armed*, std::less<>>* loaded = new std::map<std::string, Armed*, std::less<>>;
  Armed* armed;
  {
    std::lock_guard lock(mu);
    auto it = loaded->find(std::string_view(env));
    if (it == loaded->end()) it = loaded->emplace(env, Load(env)).first;
    armed = it->second;
  }
  if (armed->point.empty() || armed->point != point) return;
  if (armed->reached.fetch_add(1) + 1 == armed->at) {
    std::fprintf(stderr, "%s: crash point %s #%lld reached: SIGKILL\n", program_invocation_short_name,
                 armed->point.c_str(), armed->at);
    std::fflush(stderr);
    kill(getpid(), SIGKILL);
  }
}

}  // namespace core
