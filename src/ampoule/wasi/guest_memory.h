// Bounds-checked access to a guest's linear memory for one host call.
//
// Every pointer and length a guest passes is untrusted. All reads and writes
// go through this class, which checks the whole range against the current
// memory size (in 64-bit arithmetic, so ptr + len cannot wrap) and reports
// Errno::kFault instead of touching anything outside it. A guest without a
// memory gets kFault for every non-empty access.
//
// Values are little-endian, as wasm memory is, whatever the host's order.
// A GuestMemory is a view: it must not outlive the host call it was made
// for (memory.grow may move the bytes between calls).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ampoule/wasi/errno.h"

namespace ampoule::wasm {
struct MemoryInstance;
}

namespace ampoule::wasi {

class GuestMemory {
 public:
  explicit GuestMemory(wasm::MemoryInstance* memory);  // memory may be null

  uint64_t size() const { return size_; }

  // True if [ptr, ptr + len) lies inside the memory. A zero-length range is
  // valid at any ptr <= size().
  bool InBounds(uint64_t ptr, uint64_t len) const { return ptr <= size_ && len <= size_ - ptr; }

  // The bytes of [ptr, ptr + len), or kFault. The span stays valid until the
  // host call returns.
  Errno Bytes(uint32_t ptr, uint32_t len, std::span<uint8_t>* out);

  Errno Read8(uint32_t ptr, uint8_t* out) const;
  Errno Read16(uint32_t ptr, uint16_t* out) const;
  Errno Read32(uint32_t ptr, uint32_t* out) const;
  Errno Read64(uint32_t ptr, uint64_t* out) const;
  Errno Write8(uint32_t ptr, uint8_t v);
  Errno Write16(uint32_t ptr, uint16_t v);
  Errno Write32(uint32_t ptr, uint32_t v);
  Errno Write64(uint64_t ptr, uint64_t v);
  // Copies `bytes` to ptr; kFault if they do not fit.
  Errno WriteBytes(uint64_t ptr, std::span<const uint8_t> bytes);
  Errno WriteString(uint64_t ptr, std::string_view s);
  // Fills [ptr, ptr + len) with zeros (used for struct padding).
  Errno Zero(uint64_t ptr, uint64_t len);

 private:
  Errno ReadLE(uint64_t ptr, unsigned n, uint64_t* out) const;
  Errno WriteLE(uint64_t ptr, unsigned n, uint64_t v);

  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// One guest buffer described by an iovec/ciovec: already bounds-checked.
using GuestBuffer = std::span<uint8_t>;

// Most iovec entries one call accepts (POSIX IOV_MAX); more is kInval.
constexpr uint32_t kMaxIovecs = 1024;

// Reads `count` iovecs starting at `iovs` and checks every buffer they name.
// On success *out holds the buffers in order. Errors: kFault for any range
// outside memory, kInval for more than kMaxIovecs entries.
Errno ReadIovecs(GuestMemory& mem, uint32_t iovs, uint32_t count, std::span<GuestBuffer> storage,
                 std::span<GuestBuffer>* out);

}  // namespace ampoule::wasi
