#include "volent/agent/delays.h"

namespace volent::agent {

Delays::Delays() : thread_([this] { Loop(); }) {}

Delays::~Delays() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Delays::After(std::chrono::milliseconds delay, std::function<void()> callback) {
  {
    std::lock_guard lock(mu_);
    pending_.emplace(std::chrono::steady_clock::now() + delay, std::move(callback));
  }
  cv_.notify_all();
}

void Delays::Loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (pending_.empty()) {
      if (stopping_) return;
      cv_.wait(lock);
      continue;
    }
    auto first = pending_.begin();
    if (!stopping_ && std::chrono::steady_clock::now() < first->first) {
      cv_.wait_until(lock, first->first);
      continue;
    }
    std::function<void()> callback = std::move(first->second);
    pending_.erase(first);
    // Run without the lock: the callback may schedule another.
    lock.unlock();
    callback();
    lock.lock();
  }
}

}  // namespace volent::agent
