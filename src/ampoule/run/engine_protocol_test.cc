// The host/engine wire format: round trips and hostile bytes.
#include "ampoule/run/engine_protocol.h"

#include <gtest/gtest.h>

namespace ampoule::run {
namespace {

EngineRequest Sample() {
  EngineRequest r;
  r.kernel_sha256 = std::string(64, 'a');
  r.runtime = "python";
  r.program_name = "p.py";
  r.program = {'p', 'r', 'i', 'n', 't'};
  r.inputs = {{"x.txt", {1, 2, 3}}, {"empty", {}}};
  r.stdin_bytes = {'i', 'n'};
  r.seed = 42;
  r.fuel = 1000;
  r.memory_bytes = 1 << 20;
  r.output_cap_bytes = 99;
  return r;
}

TEST(EngineProtocol, RequestRoundTrip) {
  Result<EngineRequest> r = DecodeRequest(EncodeRequest(Sample()));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->kernel_sha256, Sample().kernel_sha256);
  EXPECT_EQ(r->program, Sample().program);
  ASSERT_EQ(r->inputs.size(), 2u);
  EXPECT_EQ(r->inputs[0].name, "x.txt");
  EXPECT_EQ(r->inputs[0].bytes, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_TRUE(r->inputs[1].bytes.empty());
  EXPECT_EQ(r->stdin_bytes, Sample().stdin_bytes);
  EXPECT_EQ(r->seed, 42u);
  EXPECT_EQ(r->output_cap_bytes, 99u);
}

TEST(EngineProtocol, EveryTruncationAndTrailingByteRefused) {
  std::string bytes = EncodeRequest(Sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeRequest(bytes.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(DecodeRequest(bytes + "x").ok());
  std::string bad_magic = bytes;
  bad_magic[0] = 'X';
  EXPECT_FALSE(DecodeRequest(bad_magic).ok());
}

TEST(EngineProtocol, HugeHeaderLengthRefused) {
  std::string bytes = EncodeRequest(Sample());
  bytes[8] = bytes[9] = bytes[10] = bytes[11] = char(0xff);
  Result<EngineRequest> r = DecodeRequest(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("header length"), std::string::npos) << r.message();
}

TEST(EngineProtocol, ResultRoundTrip) {
  EngineResult e;
  e.stop = Stop::kTrap;
  e.exit_code = 0;
  e.trap = "integer divide by zero";
  e.fuel_used = 123;
  e.memory_cap_hit = true;
  e.stdout_total_bytes = 5;
  e.stderr_total_bytes = 6;
  Result<EngineResult> r = DecodeResult(EncodeResult(e));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->stop, Stop::kTrap);
  EXPECT_EQ(r->trap, e.trap);
  EXPECT_EQ(r->fuel_used, 123u);
  EXPECT_TRUE(r->memory_cap_hit);
  EXPECT_EQ(r->stderr_total_bytes, 6u);
}

TEST(EngineProtocol, MalformedResultsRefused) {
  EXPECT_FALSE(DecodeResult("").ok());
  EXPECT_FALSE(DecodeResult("{}").ok());
  EXPECT_FALSE(DecodeResult("[1]").ok());
  std::string good = EncodeResult(EngineResult{});
  EXPECT_TRUE(DecodeResult(good).ok());
  std::string memory_stop = good;
  memory_stop.replace(memory_stop.find("\"exit\""), 6, "\"memory\"");  // decided by the host only
  EXPECT_FALSE(DecodeResult(memory_stop).ok());
  EXPECT_FALSE(DecodeResult(good.substr(0, good.size() - 1)).ok());
}

}  // namespace
}  // namespace ampoule::run
