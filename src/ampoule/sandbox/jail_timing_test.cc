// Measures, without asserting, how long a jailed run of a trivial static
// program takes: SpawnJailed (clone, namespaces, ids, empty root, seccomp,
// execveat) plus the program's start and exit, as the cold-start path pays
// it. Prints p50/p95 for the jail and, for comparison, without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "ampoule/sandbox/jail.h"
#include "ampoule/sandbox/jail_testing.h"

namespace ampoule {
namespace {

using Clock = std::chrono::steady_clock;

struct Sample {
  double spawn_ms;  // SpawnJailed returned: the program is exec'd
  double total_ms;  // reaped
};

std::vector<Sample> Measure(const JailOptions& options, int runs) {
  core::UniqueFd exe = testing::HelperMemfd("jail_probe");
  const std::string args[] = {"jail_probe", "exit", "0"};
  std::vector<Sample> samples;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    core::Result<JailedProcess> process = SpawnJailed(exe.get(), {}, args, options);
    if (!process.ok()) {
      ADD_FAILURE() << process.message();
      return samples;
    }
    const auto spawned = Clock::now();
    core::Result<JailExit> exit = WaitJailed(*process, std::nullopt);
    const auto done = Clock::now();
    EXPECT_TRUE(exit.ok() && exit->exited && exit->exit_code == 0);
    auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
    samples.push_back({ms(spawned - start), ms(done - start)});
  }
  return samples;
}

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * (values.size() - 1))];
}

void Report(const char* label, const std::vector<Sample>& samples) {
  if (samples.empty()) return;
  std::vector<double> spawn, total;
  for (const Sample& s : samples) {
    spawn.push_back(s.spawn_ms);
    total.push_back(s.total_ms);
  }
  std::printf("%-8s spawn+exec min %.2f p50 %.2f p95 %.2f ms | to exit min %.2f p50 %.2f "
              "p95 %.2f ms (%zu runs)\n",
              label, Percentile(spawn, 0), Percentile(spawn, 0.5), Percentile(spawn, 0.95),
              Percentile(total, 0), Percentile(total, 0.5), Percentile(total, 0.95),
              samples.size());
}

class JailTimingTest : public testing::JailFixture {};

TEST_F(JailTimingTest, ReportsTheCostOfAJailedRun) {
  Measure({}, 3);  // warm the page cache and the filter compiler
  Report("jail", Measure({}, 50));
  JailOptions insecure;
  insecure.insecure_no_jail = true;
  Report("no jail", Measure(insecure, 50));
}

}  // namespace
}  // namespace ampoule
