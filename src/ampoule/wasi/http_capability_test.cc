// The tool capability import, driven by tests/wasi/http_tool.c: answers
// come only from the recorded exchanges, in order; anything past them is
// the host's (ask_host) or "unavailable"; a guest cannot get around the
// record, the limit or the memory bounds.
#include "ampoule/wasi/http_capability.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "ampoule/wasi/wasi_run.h"

namespace ampoule::wasi {
namespace {

#ifdef AMPOULE_WASI_GUEST_DIR
constexpr const char* kGuestDir = AMPOULE_WASI_GUEST_DIR;
#else
constexpr const char* kGuestDir = nullptr;
#endif

std::vector<uint8_t> Bytes(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

const std::string kGet = R"({"url":"https://api.example/v1/a","method":"GET"})";
const std::string kGetCanonical = R"({"method":"GET","url":"https://api.example/v1/a"})";
const std::string kOk = R"({"body":"yes","headers":[["content-type","text/plain"]],"status":200})";

std::string Line(const std::string& request, const std::string& answer) {
  return HttpExchangeLine(nlohmann::json::parse(request), nlohmann::json::parse(answer));
}

class HttpCapabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kGuestDir == nullptr) GTEST_SKIP() << "WASI guests were not built (clang-14 or wasi-libc missing)";
    std::ifstream in(std::string(kGuestDir) + "/http_tool.wasm", std::ios::binary);
    wasm_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ASSERT_FALSE(wasm_.empty());
    request_.fuel = 1'000'000'000;
    request_.limits.max_memory_bytes = 64 << 20;
  }

  RunResult Run(const std::string& stdin_text, std::vector<std::string> args = {}) {
    request_.args = {"http_tool.wasm"};
    request_.args.insert(request_.args.end(), args.begin(), args.end());
    request_.stdin_bytes = Bytes(stdin_text);
    core::Result<RunResult> r = RunWasiCommand(wasm_, request_);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.message());
    return r.ok() ? std::move(*r) : RunResult{};
  }

  std::vector<uint8_t> wasm_;
  RunRequest request_;
};

TEST_F(HttpCapabilityTest, WithoutARecordOrAHostEveryRequestIsUnavailable) {
  RunResult r = Run(kGet + "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kReturned);
  EXPECT_NE(r.stdout_data.find(R"("error":"unavailable")"), std::string::npos) << r.stdout_data;
  EXPECT_EQ(r.http_pending, "");
}

TEST_F(HttpCapabilityTest, AskHostStopsTheRunAtTheFirstUnansweredRequest) {
  request_.http.ask_host = true;
  RunResult r = Run(kGet + "\n" + kGet + "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kTrap);
  EXPECT_EQ(r.http_pending, kGetCanonical);
  EXPECT_EQ(r.stdout_data, "");

  // With the first exchange recorded, the run gets its answer and stops at
  // the second request.
  request_.http.exchanges = Bytes(Line(kGet, kOk));
  r = Run(kGet + "\n" + kGet + "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kTrap);
  EXPECT_EQ(r.stdout_data, std::to_string(kOk.size()) + " " + kOk + "\n");
  EXPECT_EQ(r.http_pending, kGetCanonical);
}

TEST_F(HttpCapabilityTest, RecordedAnswersReplayInOrderWithoutAHost) {
  const std::string other = R"({"error":"denied","reason":"no"})";
  request_.http.exchanges = Bytes(Line(kGet, kOk) + Line(kGet, other));
  RunResult r = Run(kGet + "\n" + kGet + "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kReturned);
  EXPECT_EQ(r.stdout_data, std::to_string(kOk.size()) + " " + kOk + "\n" + std::to_string(other.size()) + " " +
                               other + "\n");
}

TEST_F(HttpCapabilityTest, ARequestOtherThanTheRecordedOneTraps) {
  request_.http.exchanges = Bytes(Line(kGet, kOk));
  RunResult r = Run(R"({"url":"https://api.example/v1/b"})" "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kTrap);
  EXPECT_NE(r.trap_message.find("not the one recorded"), std::string::npos) << r.trap_message;
}

TEST_F(HttpCapabilityTest, AnInvalidRequestIsAnsweredAtOnceAndIsNotAnExchange) {
  request_.http.ask_host = true;
  request_.http.exchanges = Bytes(Line(kGet, kOk));
  // Not JSON, an array, a duplicate key: each answered "invalid", and the
  // recorded exchange still answers the valid request after them.
  RunResult r = Run("not json\n[1]\n{\"a\":1,\"a\":2}\n" + kGet + "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kReturned) << r.trap_message;
  size_t invalid = 0;
  for (size_t at = 0; (at = r.stdout_data.find(R"("error":"invalid")", at)) != std::string::npos; ++at) ++invalid;
  EXPECT_EQ(invalid, 3u) << r.stdout_data;
  EXPECT_NE(r.stdout_data.find(kOk), std::string::npos);
}

TEST_F(HttpCapabilityTest, PastTheLimitNothingIsAskedOfTheHost) {
  request_.http.ask_host = true;
  std::string record, requests;
  for (size_t i = 0; i < kMaxHttpRequests; ++i) {
    record += Line(kGet, kOk);
    requests += kGet + "\n";
  }
  request_.http.exchanges = Bytes(record);
  RunResult r = Run(requests + kGet + "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kReturned) << r.trap_message;
  EXPECT_EQ(r.http_pending, "");
  EXPECT_NE(r.stdout_data.find(R"("error":"limit")"), std::string::npos);
}

TEST_F(HttpCapabilityTest, ABrokenRecordTrapsAtTheFirstRequestOnly) {
  request_.http.exchanges = Bytes("{\"request\":{}}\n");
  EXPECT_EQ(Run("").stop, wasm::StopReason::kReturned);  // never asked: never read
  RunResult r = Run(kGet + "\n");
  EXPECT_EQ(r.stop, wasm::StopReason::kTrap);
  EXPECT_NE(r.trap_message.find("http-exchanges.jsonl line 1"), std::string::npos) << r.trap_message;
}

TEST_F(HttpCapabilityTest, MemoryOutsideTheGuestTraps) {
  RunResult r = Run("", {"outside"});
  EXPECT_EQ(r.stop, wasm::StopReason::kTrap);
  EXPECT_NE(r.trap_message.find("outside the memory"), std::string::npos) << r.trap_message;
}

TEST_F(HttpCapabilityTest, AShortBufferGetsTheAnswersFirstBytes) {
  request_.http.exchanges = Bytes(Line(kGet, kOk));
  RunResult r = Run(kGet + "\n", {"short", "5"});
  EXPECT_EQ(r.stdout_data, std::to_string(kOk.size()) + " " + kOk.substr(0, 5) + "\n");
}

TEST(HttpExchangesTest, ParsesOnlyWellFormedRecords) {
  EXPECT_TRUE(ParseHttpExchanges("").ok());
  core::Result<std::vector<HttpExchange>> one = ParseHttpExchanges(Line(kGet, kOk));
  ASSERT_TRUE(one.ok()) << one.message();
  EXPECT_EQ((*one)[0].request, kGetCanonical);
  EXPECT_EQ((*one)[0].answer, kOk);
  for (std::string bad : {Line(kGet, kOk).substr(0, Line(kGet, kOk).size() - 1),  // no final newline
                          std::string("\n"),                                       // an empty line
                          std::string("{\"request\":{},\"answer\":{},\"x\":1}\n"),
                          std::string("{\"request\":[],\"answer\":{}}\n"),
                          std::string("{\"request\":{},\"request\":{},\"answer\":{}}\n")}) {
    EXPECT_FALSE(ParseHttpExchanges(bad).ok()) << bad;
  }
  std::string many;
  for (size_t i = 0; i <= kMaxHttpRequests; ++i) many += Line(kGet, kOk);
  core::Result<std::vector<HttpExchange>> too_many = ParseHttpExchanges(many);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.message().find("more than 16"), std::string::npos) << too_many.message();
}

}  // namespace
}  // namespace ampoule::wasi
