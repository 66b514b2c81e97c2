#include "ampoule/wasi/wasi_env.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ampoule/wasi/abi.h"
#include "ampoule/wasi/output_capture.h"

namespace ampoule::wasi {
namespace {

std::vector<uint8_t> Draw(DeterministicEnvironment& env, size_t n) {
  std::vector<uint8_t> out(n);
  env.Random(out);
  return out;
}

TEST(DeterministicEnvironmentTest, ClocksFollowFuelAndSleep) {
  DeterministicEnvironment env({.seed = 1, .epoch_ns = 1000, .ns_per_fuel = 1});
  uint64_t t = 0;
  ASSERT_EQ(env.Now(abi::kClockMonotonic, 50, &t), Errno::kSuccess);
  EXPECT_EQ(t, 50u);
  ASSERT_EQ(env.Now(abi::kClockRealtime, 50, &t), Errno::kSuccess);
  EXPECT_EQ(t, 1050u);
  env.Sleep(7);
  ASSERT_EQ(env.Now(abi::kClockMonotonic, 50, &t), Errno::kSuccess);
  EXPECT_EQ(t, 57u);
  ASSERT_EQ(env.Now(abi::kClockRealtime, 60, &t), Errno::kSuccess);
  EXPECT_EQ(t, 1067u);
  // CPU time counts work, not waiting.
  ASSERT_EQ(env.Now(abi::kClockProcessCputime, 60, &t), Errno::kSuccess);
  EXPECT_EQ(t, 60u);
  EXPECT_EQ(env.Now(4, 0, &t), Errno::kInval);
  ASSERT_EQ(env.Resolution(abi::kClockRealtime, &t), Errno::kSuccess);
  EXPECT_EQ(t, 1u);
  EXPECT_EQ(env.Resolution(99, &t), Errno::kInval);
}

TEST(DeterministicEnvironmentTest, ClocksSaturateInsteadOfWrapping) {
  DeterministicEnvironment env({.seed = 0, .epoch_ns = UINT64_MAX - 10, .ns_per_fuel = 1});
  uint64_t t = 0;
  env.Sleep(UINT64_MAX);
  env.Sleep(5);
  ASSERT_EQ(env.Now(abi::kClockRealtime, UINT64_MAX, &t), Errno::kSuccess);
  EXPECT_EQ(t, UINT64_MAX);
  ASSERT_EQ(env.Now(abi::kClockMonotonic, 3, &t), Errno::kSuccess);
  EXPECT_EQ(t, UINT64_MAX);
}

TEST(DeterministicEnvironmentTest, RandomIsAFunctionOfSeedAndPosition) {
  DeterministicEnvironment a({.seed = 42}), b({.seed = 42}), c({.seed = 43});
  std::vector<uint8_t> whole = Draw(a, 300);
  // The same stream, drawn in odd-sized pieces that cross block boundaries.
  std::vector<uint8_t> pieces;
  for (size_t n : {1, 63, 0, 65, 128, 43}) {
    std::vector<uint8_t> part = Draw(b, n);
    pieces.insert(pieces.end(), part.begin(), part.end());
  }
  EXPECT_EQ(whole, pieces);
  EXPECT_NE(Draw(c, 300), whole);
  // Not all zero, not a repeating block.
  EXPECT_NE(std::vector<uint8_t>(whole.begin(), whole.begin() + 64),
            std::vector<uint8_t>(whole.begin() + 64, whole.begin() + 128));
}

TEST(DeterministicEnvironmentTest, RandomStreamIsPinned) {
  // The stream is part of the run definition: a change here changes every
  // recorded run that used random_get. The expected bytes were computed
  // independently (SHA-256 and ChaCha20 from another implementation).
  auto hex = [](const std::vector<uint8_t>& b) {
    std::string s;
    char buf[3];
    for (uint8_t x : b) {
      snprintf(buf, sizeof buf, "%02x", x);
      s += buf;
    }
    return s;
  };
  DeterministicEnvironment seed0({.seed = 0});
  EXPECT_EQ(hex(Draw(seed0, 8)), "20735239df301900");
  DeterministicEnvironment seed42({.seed = 42});
  EXPECT_EQ(hex(Draw(seed42, 16)), "6bcc9e061d73b57dafd9899bdabc6901");
}

TEST(OutputCaptureTest, KeepsUpToCapAndCountsTheRest) {
  std::string live;
  OutputCapture cap(5, [&](std::span<const uint8_t> b) { live.append(b.begin(), b.end()); });
  std::string a = "abc", b = "defgh";
  cap.Write({reinterpret_cast<const uint8_t*>(a.data()), a.size()});
  EXPECT_FALSE(cap.truncated());
  cap.Write({reinterpret_cast<const uint8_t*>(b.data()), b.size()});
  EXPECT_EQ(cap.data(), "abcde");
  EXPECT_EQ(live, "abcde");
  EXPECT_EQ(cap.total_bytes(), 8u);
  EXPECT_EQ(cap.kept_bytes(), 5u);
  EXPECT_TRUE(cap.truncated());
  std::string taken = cap.TakeData();
  EXPECT_EQ(taken, "abcde");
  EXPECT_TRUE(cap.truncated());
}

}  // namespace
}  // namespace ampoule::wasi
