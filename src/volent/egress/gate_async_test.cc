// The gate's asynchronous core (gate.h): many requests in flight on one I/O
// thread, callbacks called exactly once, refusals answered at once on the
// caller's thread, Send from a callback, and the destructor waiting for what
// is under way.
#include "volent/egress/gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include <sys/resource.h>

#include "volent/egress/test_dns_server.h"
#include "volent/egress/test_http_server.h"

namespace volent::egress {
namespace {

using testing::DnsRecord;
using testing::Reply;
using testing::Seen;
using testing::TestServer;

std::vector<manifest::AllowEntry> Loopback(int port) { return {{"local", "http", "", "127.0.0.0/8", port, "", {}}}; }

GateOptions Threads(size_t n) {
  GateOptions options;
  options.io_threads = n;
  return options;
}

HttpRequest Get(std::string url) {
  HttpRequest r;
  r.url = std::move(url);
  r.timeout_ms = 60000;
  return r;
}

// Counts callbacks and waits for a number of them.
struct Waiter {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<SendResult> results;
  void Add(SendResult r) {
    std::lock_guard<std::mutex> lock(mutex);
    results.push_back(std::move(r));
    cv.notify_all();
  }
  bool WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(120), [&] { return results.size() >= n; });
  }
};

TEST(GateAsync, TwoHundredInFlightOnOneThread) {
  constexpr size_t kRequests = 200;
  TestServer server;
  server.Hold(kRequests);  // nothing is answered before all of them have arrived
  Gate gate(Loopback(server.port()), Threads(1));
  Waiter waiter;
  for (size_t i = 0; i < kRequests; ++i) {
    gate.SendAsync("local", Get(server.Url("/" + std::to_string(i))), [&waiter](SendResult r) { waiter.Add(std::move(r)); });
  }
  ASSERT_TRUE(waiter.WaitFor(kRequests));
  std::set<std::string> bodies;
  for (const SendResult& r : waiter.results) EXPECT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(waiter.results.size(), kRequests);
  EXPECT_EQ(server.most_held(), kRequests) << "the requests were not in flight together";
  std::set<std::string> targets;
  for (const Seen& seen : server.Requests()) targets.insert(seen.target);
  EXPECT_EQ(targets.size(), kRequests);
}

// docs/models.md's target: 1,500 requests in flight at once on two threads. Each
// needs a descriptor here and one in the server, so the soft limit is raised
// towards the hard one; the test is skipped where that is not enough.
TEST(GateAsync, FifteenHundredInFlightOnTwoThreads) {
  constexpr size_t kRequests = 1500;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 2 * kRequests + 200) {
    limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, 2 * kRequests + 200);
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < 2 * kRequests + 200) {
    GTEST_SKIP() << "the descriptor limit is " << limit.rlim_cur << ", below what 1,500 connections need";
  }
  TestServer server;
  server.Hold(kRequests);
  Gate gate(Loopback(server.port()), Threads(2));
  Waiter waiter;
  for (size_t i = 0; i < kRequests; ++i) {
    gate.SendAsync("local", Get(server.Url("/" + std::to_string(i))), [&waiter](SendResult r) { waiter.Add(std::move(r)); });
  }
  ASSERT_TRUE(waiter.WaitFor(kRequests));
  size_t answered = 0;
  for (const SendResult& r : waiter.results) answered += r.outcome == Outcome::kAnswered ? 1 : 0;
  EXPECT_EQ(answered, kRequests) << waiter.results.front().reason;
  EXPECT_EQ(server.most_held(), kRequests) << "the requests were not in flight together";
}

TEST(GateAsync, NamesResolvedThroughTheDnsServerInFlightTogether) {
  constexpr size_t kRequests = 50;
  testing::TestDnsServer dns;
  ASSERT_TRUE(dns.ok());
  dns.Set("api.test", {DnsRecord::A("127.0.0.1")});
  TestServer server;
  server.Hold(kRequests);
  GateOptions options = Threads(1);
  options.dns_server = dns.address();
  Gate gate(Loopback(server.port()), options);
  Waiter waiter;
  const std::string url = "http://api.test:" + std::to_string(server.port()) + "/";
  for (size_t i = 0; i < kRequests; ++i) {
    gate.SendAsync("local", Get(url), [&waiter](SendResult r) { waiter.Add(std::move(r)); });
  }
  ASSERT_TRUE(waiter.WaitFor(kRequests));
  for (const SendResult& r : waiter.results) {
    EXPECT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
    EXPECT_EQ(r.pinned_address, "127.0.0.1:" + std::to_string(server.port()));
  }
  EXPECT_EQ(server.most_held(), kRequests);
  EXPECT_EQ(server.Requests().at(0).Get("Host"), "api.test:" + std::to_string(server.port()));
}

TEST(GateAsync, ASilentDnsServerEndsAtTheDeadline) {
  testing::TestDnsServer dns;
  ASSERT_TRUE(dns.ok());
  dns.SetSilent("slow.test");
  GateOptions options = Threads(1);
  options.dns_server = dns.address();
  Gate gate(Loopback(80), options);
  Waiter waiter;
  for (int i = 0; i < 5; ++i) {
    HttpRequest request = Get("http://slow.test/");
    request.timeout_ms = 300;
    gate.SendAsync("local", request, [&waiter](SendResult r) { waiter.Add(std::move(r)); });
  }
  ASSERT_TRUE(waiter.WaitFor(5));
  for (const SendResult& r : waiter.results) {
    EXPECT_EQ(r.outcome, Outcome::kNotSent);
    EXPECT_NE(r.reason.find("could not resolve slow.test"), std::string::npos) << r.reason;
  }
}

TEST(GateAsync, RefusalsAreAnsweredAtOnceOnTheCallersThread) {
  Gate gate(Loopback(1));
  bool called = false;
  std::thread::id on;
  gate.SendAsync("local", Get("http://0x7f.1/"), [&](SendResult r) {
    called = true;
    on = std::this_thread::get_id();
    EXPECT_EQ(r.outcome, Outcome::kDenied);
  });
  EXPECT_TRUE(called);
  EXPECT_EQ(on, std::this_thread::get_id());
}

TEST(GateAsync, CallbacksRunOnTheGatesThreads) {
  TestServer server;
  Gate gate(Loopback(server.port()), Threads(1));
  Waiter waiter;
  std::thread::id on;
  gate.SendAsync("local", Get(server.Url()), [&](SendResult r) {
    on = std::this_thread::get_id();
    waiter.Add(std::move(r));
  });
  ASSERT_TRUE(waiter.WaitFor(1));
  EXPECT_EQ(waiter.results[0].outcome, Outcome::kAnswered);
  EXPECT_NE(on, std::this_thread::get_id());
}

TEST(GateAsync, SendFromACallbackDoesNotWaitForItself) {
  TestServer server;
  Gate gate(Loopback(server.port()), Threads(1));
  Waiter waiter;
  gate.SendAsync("local", Get(server.Url("/first")), [&](SendResult first) {
    // The gate's only I/O thread is this one.
    SendResult second = gate.Send("local", Get(server.Url("/second")));
    waiter.Add(std::move(first));
    waiter.Add(std::move(second));
  });
  ASSERT_TRUE(waiter.WaitFor(2));
  EXPECT_EQ(waiter.results[0].outcome, Outcome::kAnswered) << waiter.results[0].reason;
  EXPECT_EQ(waiter.results[1].outcome, Outcome::kAnswered) << waiter.results[1].reason;
  EXPECT_EQ(server.Requests().size(), 2u);
}

TEST(GateAsync, TheDestructorWaitsForExchangesUnderWay) {
  TestServer server;
  server.Hold(1000);  // answers only when released
  std::atomic<int> calls{0};
  SendResult last;
  std::thread releaser;
  {
    Gate gate(Loopback(server.port()), Threads(2));
    for (int i = 0; i < 3; ++i) {
      gate.SendAsync("local", Get(server.Url()), [&](SendResult r) {
        if (++calls == 3) last = std::move(r);
      });
    }
    releaser = std::thread([&server] {
      while (server.Requests().size() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      server.Release();
    });
  }  // ~Gate: returns once the three are over
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(last.outcome, Outcome::kAnswered) << last.reason;
  releaser.join();
}

TEST(GateAsync, DestroyedFromItsOwnCallback) {
  TestServer server;
  auto gate = std::make_unique<Gate>(Loopback(server.port()), Threads(1));
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  gate->SendAsync("local", Get(server.Url()), [&](SendResult r) {
    EXPECT_EQ(r.outcome, Outcome::kAnswered);
    gate.reset();  // the last owner goes, on the gate's own thread
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mutex);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return done; }));
}

TEST(GateAsync, SyncAndAsyncFromManyThreads) {
  TestServer server;
  Gate gate(Loopback(server.port()), Threads(2));
  std::vector<std::thread> threads;
  std::atomic<int> answered{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        if (gate.Send("local", Get(server.Url())).outcome == Outcome::kAnswered) ++answered;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(answered.load(), 80);
}

}  // namespace
}  // namespace volent::egress
