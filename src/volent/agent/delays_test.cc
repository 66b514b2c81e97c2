// Delays: callbacks run once each, in the order they fall due, on the
// delays' own thread; a callback may schedule another; destruction runs
// what is still pending at once.
#include "volent/agent/delays.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace volent::agent {
namespace {

using std::chrono::milliseconds;

struct Log {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  void Add(int n) {
    std::lock_guard lock(mu);
    order.push_back(n);
    threads.push_back(std::this_thread::get_id());
    cv.notify_all();
  }
  bool WaitFor(size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return order.size() >= n; });
  }
};

TEST(Delays, RunEachCallbackOnceInTheOrderItFallsDue) {
  Log log;
  Delays delays;
  delays.After(milliseconds(60), [&] { log.Add(3); });
  delays.After(milliseconds(0), [&] { log.Add(1); });
  delays.After(milliseconds(30), [&] { log.Add(2); });
  ASSERT_TRUE(log.WaitFor(3));
  std::lock_guard lock(log.mu);
  EXPECT_EQ(log.order, (std::vector<int>{1, 2, 3}));
  EXPECT_NE(log.threads[0], std::this_thread::get_id());
}

TEST(Delays, ACallbackMayScheduleAnother) {
  Log log;
  Delays delays;
  delays.After(milliseconds(1), [&] {
    log.Add(1);
    delays.After(milliseconds(1), [&] { log.Add(2); });
  });
  ASSERT_TRUE(log.WaitFor(2));
  std::lock_guard lock(log.mu);
  EXPECT_EQ(log.order, (std::vector<int>{1, 2}));
}

TEST(Delays, DestructionRunsWhatIsPendingAtOnce) {
  Log log;
  {
    Delays delays;
    delays.After(std::chrono::hours(1), [&] { log.Add(1); });
  }
  std::lock_guard lock(log.mu);
  EXPECT_EQ(log.order, (std::vector<int>{1}));
}

}  // namespace
}  // namespace volent::agent
