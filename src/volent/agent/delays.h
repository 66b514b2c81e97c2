// Callbacks run after a delay, on one thread of their own: how the agent
// loop's performers wait between attempts of a call (tool_call.h,
// model_step.h) without sleeping on a worker or on one of the egress
// gate's I/O threads, which would stall every other call they carry.
//
// Callbacks run one at a time, in the order they fall due; a callback may
// schedule another. Destruction runs whatever is still pending at once (its
// delay cut short), then joins the thread: callers make sure nothing that a
// callback touches is gone by then (the node destroys its RunManager, whose
// Stop waits for the steps in flight, first).
//
// Thread-safe: After may be called from any thread, including from a
// callback.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace volent::agent {

class Delays {
 public:
  Delays();
  ~Delays();
  Delays(const Delays&) = delete;
  Delays& operator=(const Delays&) = delete;

  // Runs `callback` on the delays' thread once `delay` has passed.
  void After(std::chrono::milliseconds delay, std::function<void()> callback);

 private:
  void Loop();

  std::mutex mu_;  // guards pending_ and stopping_
  std::condition_variable cv_;
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> pending_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace volent::agent
