// TEST-ONLY fault switch: makes the Nth write, fsync, close, rename or
// folder sync of the core's file functions fail, as SQLite's test_malloc
// countdowns fail the Nth allocation. A test arms a countdown, calls the
// code under test, and checks that it either succeeded or failed cleanly
// (a named step, no file half-replaced, no descriptor left open).
//
// Only tests arm it; nothing outside a _test.cc may call Arm. Unarmed
// (always, in the products), Fail is one relaxed atomic load that reads 0,
// beside a system call that costs a thousand times more.
//
// Header-only, so that the static PID 1 (src/volent/init), which links no
// library of ours, uses the same write loop (core/write_all.h).
//
// Thread-safety: the countdowns are atomic, but "the Nth call" only means
// something while one thread does the calls: arm, call, disarm on the test's
// own thread, with no other thread writing files.
#pragma once

#include <atomic>
#include <cerrno>

namespace core::fault {

// The calls that can be made to fail. kShortWrite does not fail: the write
// writes one byte only, as a pipe or a full disk may.
enum class Op { kWrite, kShortWrite, kFsync, kClose, kRename, kFolderSync };
inline constexpr int kOpCount = 6;

namespace internal {
struct Countdown {
  std::atomic<int> left{0};  // 0: unarmed; 1: the next call fails
  std::atomic<int> error{0};
};
inline Countdown countdowns[kOpCount];
inline std::atomic<int> armed{0};  // how many countdowns are running

inline bool CountDown(Op op) {
  Countdown& c = countdowns[static_cast<int>(op)];
  int left = c.left.load(std::memory_order_relaxed);
  while (left > 0 && !c.left.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {
  }
  if (left != 1) return false;
  armed.fetch_sub(1, std::memory_order_relaxed);
  errno = c.error.load(std::memory_order_relaxed);
  return true;
}
}  // namespace internal

// Arms `op`: the `nth` call from now (1: the very next) fails with errno
// `error`; the calls before it and after it run normally. Re-arming an
// armed op replaces its countdown. REQUIRES: nth >= 1.
inline void Arm(Op op, int nth, int error = EIO) {
  internal::Countdown& c = internal::countdowns[static_cast<int>(op)];
  c.error.store(error, std::memory_order_relaxed);
  if (c.left.exchange(nth, std::memory_order_relaxed) == 0) internal::armed.fetch_add(1, std::memory_order_relaxed);
}

// True while `op`'s countdown has not reached its call: the code under test
// made fewer than `nth` such calls, so the fault never happened.
inline bool Pending(Op op) { return internal::countdowns[static_cast<int>(op)].left.load() > 0; }

// Stops every countdown.
inline void DisarmAll() {
  for (internal::Countdown& c : internal::countdowns) {
    if (c.left.exchange(0, std::memory_order_relaxed) > 0) internal::armed.fetch_sub(1, std::memory_order_relaxed);
  }
}

// For the wrapped calls only (core/write_all.h, core/file_write.cc): true
// when this call of `op` is the one armed to fail, with errno set to the
// armed error. The caller then behaves as if the system call had failed.
inline bool Fail(Op op) {
  if (internal::armed.load(std::memory_order_relaxed) == 0) [[likely]] return false;
  return internal::CountDown(op);
}

}  // namespace core::fault
