#include "ampoule/wasi/wasi_env.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "ampoule/wasi/abi.h"
#include "core/sha256.h"

namespace ampoule::wasi {
namespace {

constexpr std::string_view kRandomDomain = "ampoule/wasi/random_get/v1";
constexpr size_t kBlockBytes = 64;

uint64_t SatAdd(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }
uint64_t SatMul(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

}  // namespace

DeterministicEnvironment::DeterministicEnvironment(const DeterministicEnvironmentOptions& options)
    : options_(options), slept_ns_(options.base_slept_ns) {
  // sodium_init only selects faster implementations; their output is the
  // same bytes. It is safe to call more than once.
  if (sodium_init() < 0) {
    // Only possible without a usable system RNG, which nothing here needs:
    // the stream below is computed, never drawn from the host.
  }
  uint8_t input[kRandomDomain.size() + 8];
  memcpy(input, kRandomDomain.data(), kRandomDomain.size());
  for (int i = 0; i < 8; ++i) input[kRandomDomain.size() + i] = uint8_t(options.seed >> (8 * i));
  key_ = core::Sha256(std::span<const uint8_t>(input));
}

Errno DeterministicEnvironment::Now(uint32_t clock_id, uint64_t fuel_used, uint64_t* out_ns) {
  uint64_t cpu = SatMul(SatAdd(fuel_used, options_.base_fuel), options_.ns_per_fuel);
  uint64_t elapsed = SatAdd(cpu, slept_ns_);
  switch (clock_id) {
    case abi::kClockRealtime: *out_ns = SatAdd(options_.epoch_ns, elapsed); return Errno::kSuccess;
    case abi::kClockMonotonic: *out_ns = elapsed; return Errno::kSuccess;
    case abi::kClockProcessCputime:
    case abi::kClockThreadCputime: *out_ns = cpu; return Errno::kSuccess;
    default: return Errno::kInval;
  }
}

Errno DeterministicEnvironment::Resolution(uint32_t clock_id, uint64_t* out_ns) {
  if (clock_id > abi::kClockThreadCputime) return Errno::kInval;
  *out_ns = 1;
  return Errno::kSuccess;
}

void DeterministicEnvironment::Sleep(uint64_t ns) { slept_ns_ = SatAdd(slept_ns_, ns); }

void DeterministicEnvironment::RefillBlock() {
  static const uint8_t kNonce[crypto_stream_chacha20_NONCEBYTES] = {};
  block_.fill(0);
  crypto_stream_chacha20_xor_ic(block_.data(), block_.data(), kBlockBytes, kNonce, next_block_++,
                                key_.data());
  block_used_ = 0;
}

void DeterministicEnvironment::Random(std::span<uint8_t> out) {
  static const uint8_t kNonce[crypto_stream_chacha20_NONCEBYTES] = {};
  // Whatever is left of the current block comes first.
  size_t n = std::min(out.size(), kBlockBytes - block_used_);
  if (n != 0) memcpy(out.data(), block_.data() + block_used_, n);
  block_used_ += n;
  out = out.subspan(n);
  // Whole blocks go straight into the guest's buffer.
  size_t whole = out.size() / kBlockBytes * kBlockBytes;
  if (whole != 0) {
    memset(out.data(), 0, whole);
    crypto_stream_chacha20_xor_ic(out.data(), out.data(), whole, kNonce, next_block_, key_.data());
    next_block_ += whole / kBlockBytes;
    out = out.subspan(whole);
  }
  if (!out.empty()) {
    RefillBlock();
    memcpy(out.data(), block_.data(), out.size());
    block_used_ = out.size();
  }
}

}  // namespace ampoule::wasi
