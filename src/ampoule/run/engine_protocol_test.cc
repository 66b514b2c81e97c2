// The host/engine wire format: round trips and hostile bytes.
#include "ampoule/run/engine_protocol.h"

#include <gtest/gtest.h>

#include "core/sha256.h"

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
  core::Result<EngineRequest> r = DecodeRequest(EncodeRequest(Sample()));
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
  core::Result<EngineRequest> r = DecodeRequest(bytes);
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
  core::Result<EngineResult> r = DecodeResult(EncodeResult(e));
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

TEST(EngineProtocol, OutputFilesTravelAfterTheHeader) {
  EngineResult e;
  e.outputs = {{"a-b.txt", "first"}, {"a/c.json", std::string("{\"x\":1}\0bin", 11)}, {"z", ""}};
  e.outputs_left_out = 2;
  core::Result<EngineResult> r = DecodeResult(EncodeResult(e));
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->outputs.size(), 3u);
  EXPECT_EQ(r->outputs[1].name, "a/c.json");
  EXPECT_EQ(r->outputs[1].bytes, e.outputs[1].bytes);
  EXPECT_EQ(r->outputs[2].bytes, "");
  EXPECT_EQ(r->outputs_left_out, 2u);
}

TEST(EngineProtocol, AnOlderEnginesPlainJsonResultStillReads) {
  std::string framed = EncodeResult(EngineResult{});
  std::string json = framed.substr(12);  // the header alone: what engines wrote before outputs
  core::Result<EngineResult> r = DecodeResult(json);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(r->outputs.empty());
}

// The result comes from a process that ran untrusted code: names that could
// climb out of a folder, repeated names and lengths past the end are refused.
TEST(EngineProtocol, HostileOutputFilesRefused) {
  for (const char* name : {"../escape", "/abs", "a/../../b", "", "a//b", "ctl\x01", "a/."}) {
    EngineResult e;
    e.outputs = {{name, "x"}};
    EXPECT_FALSE(DecodeResult(EncodeResult(e)).ok()) << name;
  }
  EngineResult twice;
  twice.outputs = {{"a", "1"}, {"a", "2"}};
  EXPECT_FALSE(DecodeResult(EncodeResult(twice)).ok());
  EngineResult unsorted;
  unsorted.outputs = {{"b", "1"}, {"a", "2"}};
  EXPECT_FALSE(DecodeResult(EncodeResult(unsorted)).ok());
  EngineResult one;
  one.outputs = {{"a", "12345"}};
  std::string bytes = EncodeResult(one);
  EXPECT_FALSE(DecodeResult(bytes.substr(0, bytes.size() - 1)).ok());  // truncated
  EXPECT_FALSE(DecodeResult(bytes + "x").ok());                         // trailing bytes
}

TEST(EngineProtocol, FilesystemCapsAreOptionalInTheRequest) {
  EngineRequest req;
  req.runtime = "wasm";
  req.program_name = "p.wasm";
  req.fs_bytes = 1 << 20;
  req.fs_files = 10;
  req.fs_depth = 3;
  core::Result<EngineRequest> back = DecodeRequest(EncodeRequest(req));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->fs_bytes, 1u << 20);
  EXPECT_EQ(back->fs_files, 10u);
  EXPECT_EQ(back->fs_depth, 3u);
}

TEST(EngineProtocol, TheToolCapabilityFieldsTravelOnlyWhenSet) {
  EXPECT_FALSE(DecodeRequest(EncodeRequest(Sample()))->http_ask_host);
  EXPECT_EQ(EncodeRequest(Sample()).find("http_ask_host"), std::string::npos);  // older engines see nothing new
  EngineRequest req = Sample();
  req.http_ask_host = true;
  EXPECT_TRUE(DecodeRequest(EncodeRequest(req))->http_ask_host);

  EngineResult e;
  e.stop = Stop::kTrap;
  e.http_pending = R"({"url":"https://a.example/"})";
  core::Result<EngineResult> r = DecodeResult(EncodeResult(e));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->http_pending, e.http_pending);
  EXPECT_EQ(EncodeResult(EngineResult{}).find("http_pending"), std::string::npos);
  EXPECT_EQ(DecodeResult(EncodeResult(EngineResult{}))->http_pending, "");
}

// The host reads a result as it comes, in any pieces: the same result
// whether it arrives whole or a byte at a time.
TEST(ResultReader, ReadsAResultInAnyPieces) {
  EngineResult e;
  e.stop = Stop::kExit;
  e.exit_code = 3;
  e.outputs = {{"a", "first"}, {"b/c", std::string(100000, 'x')}, {"empty", ""}, {"z", "last"}};
  const std::string bytes = EncodeResult(e);
  for (size_t piece : {size_t(1), size_t(7), size_t(4096), bytes.size()}) {
    ResultReader reader(UINT64_MAX, /*keep_files=*/true);
    for (size_t at = 0; at < bytes.size(); at += piece) reader.Feed(std::string_view(bytes).substr(at, piece));
    core::Result<EngineResult> r = reader.Finish();
    ASSERT_TRUE(r.ok()) << piece << ": " << r.message();
    EXPECT_EQ(r->exit_code, 3);
    ASSERT_EQ(r->outputs.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(r->outputs[i].bytes, e.outputs[i].bytes) << i;
      EXPECT_EQ(r->outputs[i].size, e.outputs[i].bytes.size()) << i;
      EXPECT_EQ(r->outputs[i].sha256, core::Sha256Hex(e.outputs[i].bytes)) << i;
    }
  }
}

// Without keep_files the host holds none of the files' bytes, only what
// the record needs: their names, sizes and digests.
TEST(ResultReader, HashesWithoutKeeping) {
  EngineResult e;
  e.outputs = {{"big", std::string(1 << 20, 'y')}, {"small", "s"}};
  ResultReader reader(UINT64_MAX, /*keep_files=*/false);
  const std::string bytes = EncodeResult(e);
  for (size_t at = 0; at < bytes.size(); at += 65536) reader.Feed(std::string_view(bytes).substr(at, 65536));
  core::Result<EngineResult> r = reader.Finish();
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->outputs.size(), 2u);
  EXPECT_TRUE(r->outputs[0].bytes.empty());
  EXPECT_EQ(r->outputs[0].bytes.capacity() < 4096, true);
  EXPECT_EQ(r->outputs[0].size, uint64_t(1) << 20);
  EXPECT_EQ(r->outputs[0].sha256, core::Sha256Hex(e.outputs[0].bytes));
  EXPECT_EQ(r->outputs[1].sha256, core::Sha256Hex(std::string_view("s")));
}

// The cap is the filesystem's: a header that declares more file bytes than
// it is refused as soon as the header is in, whatever follows; the pipe may
// go on being drained into the reader.
TEST(ResultReader, FilesOverTheCapRefusedAtTheHeader) {
  EngineResult e;
  e.outputs = {{"a", std::string(600, 'a')}, {"b", std::string(500, 'b')}};
  const std::string bytes = EncodeResult(e);
  const std::string head = EncodeResultHeader(e);
  ResultReader exact(1100, /*keep_files=*/true);
  exact.Feed(bytes);
  EXPECT_TRUE(exact.Finish().ok());

  ResultReader over(1099, /*keep_files=*/true);
  over.Feed(head);  // the header alone decides
  over.Feed(bytes.substr(head.size()));
  over.Feed(std::string(1 << 20, 'z'));  // drained, ignored
  core::Result<EngineResult> r = over.Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("more than the filesystem cap of 1099 bytes (at 'b')"), std::string::npos)
      << r.message();
}

// Hostile headers: sizes that add up past 2^64, a size no host could hold,
// a header length over the limit, a plain JSON result over it.
TEST(ResultReader, HostileSizesRefused) {
  EngineResult e;
  e.outputs = {{"a", "x"}, {"b", "y"}};
  std::string bytes = EncodeResult(e);
  std::string wrapped = bytes;
  auto set_size = [](std::string& text, const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, from.size(), to);
    uint32_t len = uint32_t(text.size() - 12 - 2);  // the header less the two files' bytes
    for (int i = 0; i < 4; ++i) text[8 + i] = char(len >> (8 * i));
  };
  set_size(wrapped, "\"bytes\":1,\"name\":\"a\"", "\"bytes\":18446744073709551615,\"name\":\"a\"");
  for (uint64_t cap : {UINT64_MAX, uint64_t(1) << 30}) {
    ResultReader reader(cap, /*keep_files=*/true);
    reader.Feed(wrapped);
    core::Result<EngineResult> r = reader.Finish();
    EXPECT_FALSE(r.ok()) << cap;
  }
  EXPECT_FALSE(DecodeResult(wrapped).ok());

  std::string long_header = bytes;
  long_header[8] = long_header[9] = long_header[10] = char(0xff);
  long_header[11] = 0;
  ResultReader reader(UINT64_MAX, true);
  reader.Feed(long_header);
  core::Result<EngineResult> r = reader.Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("over the limit"), std::string::npos) << r.message();

  ResultReader plain(UINT64_MAX, true);
  plain.Feed("{");
  plain.Feed(std::string(kMaxResultHeaderBytes, ' '));
  core::Result<EngineResult> p = plain.Finish();
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("bytes of JSON"), std::string::npos) << p.message();
}

TEST(ResultReader, EveryTruncationRefused) {
  EngineResult e;
  e.outputs = {{"a", "12345"}, {"b", ""}, {"c", "6"}};
  const std::string bytes = EncodeResult(e);
  for (size_t n = 0; n < bytes.size(); ++n) {
    ResultReader reader(UINT64_MAX, /*keep_files=*/false);
    reader.Feed(bytes.substr(0, n));
    EXPECT_FALSE(reader.Finish().ok()) << n;
  }
  ResultReader trailing(UINT64_MAX, false);
  trailing.Feed(bytes + "x");
  EXPECT_FALSE(trailing.Finish().ok());
}

}  // namespace
}  // namespace ampoule::run
