// The environment a WASI guest sees of the outside world: clocks and
// randomness. Every clock read and every random byte goes through this one
// interface, so this is where a run's determinism is decided.
//
// DeterministicEnvironment is the only implementation a recorded run uses:
//   - time is virtual. elapsed = fuel_used * ns_per_fuel + slept, where
//     `slept` is what poll_oneoff waited. monotonic = elapsed; realtime =
//     epoch + elapsed; the CPU-time clocks = fuel_used * ns_per_fuel. All
//     saturate at 2^64-1 instead of wrapping. A run restored from a
//     snapshot (snapshot.h) continues the clock of the start-up that made
//     it: fuel_used counts from base_fuel and slept from base_slept_ns. Fuel only grows, so every clock
//     is monotonic, and a replay of the run reads the same values.
//   - random bytes are the ChaCha20 keystream (libsodium, 64-bit nonce of
//     zeros) under the key SHA-256("ampoule/wasi/random_get/v1" || seed as
//     8 little-endian bytes). Successive calls continue the one stream, so
//     the bytes depend only on the seed and on how many came before.
// Any change to these definitions changes run results: treat it like a cost
// table change (see docs/decisions/0005-deterministic-wasi.md).
//
// Thread safety: one environment serves one run, on one thread.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "ampoule/wasi/errno.h"

namespace ampoule::wasi {

class WasiEnvironment {
 public:
  virtual ~WasiEnvironment() = default;

  // The time on `clock_id` in nanoseconds, given the fuel the run has used.
  // kInval for an unknown clock.
  virtual Errno Now(uint32_t clock_id, uint64_t fuel_used, uint64_t* out_ns) = 0;
  // The resolution of `clock_id` in nanoseconds; kInval for an unknown clock.
  virtual Errno Resolution(uint32_t clock_id, uint64_t* out_ns) = 0;
  // The guest waits `ns` nanoseconds (poll_oneoff on a clock).
  virtual void Sleep(uint64_t ns) = 0;
  // Fills `out` with random bytes.
  virtual void Random(std::span<uint8_t> out) = 0;
};

// 2024-01-01T00:00:00Z: the realtime clock's value at fuel 0 unless a run
// request says otherwise.
constexpr uint64_t kDefaultEpochNs = uint64_t(1'704'067'200) * 1'000'000'000;

struct DeterministicEnvironmentOptions {
  uint64_t seed = 0;
  uint64_t epoch_ns = kDefaultEpochNs;
  uint64_t ns_per_fuel = 1;
  // The clock's starting point: fuel and sleep already behind the guest
  // (a snapshot's start-up). Zero for a run from the beginning.
  uint64_t base_fuel = 0;
  uint64_t base_slept_ns = 0;
};

class DeterministicEnvironment final : public WasiEnvironment {
 public:
  explicit DeterministicEnvironment(const DeterministicEnvironmentOptions& options);

  Errno Now(uint32_t clock_id, uint64_t fuel_used, uint64_t* out_ns) override;
  Errno Resolution(uint32_t clock_id, uint64_t* out_ns) override;
  void Sleep(uint64_t ns) override;
  void Random(std::span<uint8_t> out) override;

  // Everything slept so far, base_slept_ns included.
  uint64_t slept_ns() const { return slept_ns_; }

 private:
  void RefillBlock();

  DeterministicEnvironmentOptions options_;
  uint64_t slept_ns_ = 0;
  std::array<uint8_t, 32> key_{};
  uint64_t next_block_ = 0;          // ChaCha20 block counter
  std::array<uint8_t, 64> block_{};  // the current keystream block
  size_t block_used_ = 64;           // bytes of block_ already handed out
};

}  // namespace ampoule::wasi
