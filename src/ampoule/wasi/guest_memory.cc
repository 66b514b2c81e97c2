#include "ampoule/wasi/guest_memory.h"

#include <cstring>

#include "ampoule/wasi/abi.h"
#include "ampoule/wasm/runtime.h"

namespace ampoule::wasi {

GuestMemory::GuestMemory(wasm::MemoryInstance* memory) {
  if (memory != nullptr) {
    data_ = memory->data.data();
    size_ = memory->data.size();
  }
}

Errno GuestMemory::Bytes(uint32_t ptr, uint32_t len, std::span<uint8_t>* out) {
  if (!InBounds(ptr, len)) return Errno::kFault;
  *out = len == 0 ? std::span<uint8_t>() : std::span<uint8_t>(data_ + ptr, len);
  return Errno::kSuccess;
}

Errno GuestMemory::ReadLE(uint64_t ptr, unsigned n, uint64_t* out) const {
  if (!InBounds(ptr, n)) return Errno::kFault;
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t(data_[ptr + i]) << (8 * i);
  *out = v;
  return Errno::kSuccess;
}

Errno GuestMemory::WriteLE(uint64_t ptr, unsigned n, uint64_t v) {
  if (!InBounds(ptr, n)) return Errno::kFault;
  for (unsigned i = 0; i < n; ++i) data_[ptr + i] = uint8_t(v >> (8 * i));
  return Errno::kSuccess;
}

Errno GuestMemory::Read8(uint32_t ptr, uint8_t* out) const {
  uint64_t v;
  AMP_WASI_TRY(ReadLE(ptr, 1, &v));
  *out = uint8_t(v);
  return Errno::kSuccess;
}

Errno GuestMemory::Read16(uint32_t ptr, uint16_t* out) const {
  uint64_t v;
  AMP_WASI_TRY(ReadLE(ptr, 2, &v));
  *out = uint16_t(v);
  return Errno::kSuccess;
}

Errno GuestMemory::Read32(uint32_t ptr, uint32_t* out) const {
  uint64_t v;
  AMP_WASI_TRY(ReadLE(ptr, 4, &v));
  *out = uint32_t(v);
  return Errno::kSuccess;
}

Errno GuestMemory::Read64(uint32_t ptr, uint64_t* out) const { return ReadLE(ptr, 8, out); }
Errno GuestMemory::Write8(uint32_t ptr, uint8_t v) { return WriteLE(ptr, 1, v); }
Errno GuestMemory::Write16(uint32_t ptr, uint16_t v) { return WriteLE(ptr, 2, v); }
Errno GuestMemory::Write32(uint32_t ptr, uint32_t v) { return WriteLE(ptr, 4, v); }
Errno GuestMemory::Write64(uint64_t ptr, uint64_t v) { return WriteLE(ptr, 8, v); }

Errno GuestMemory::WriteBytes(uint64_t ptr, std::span<const uint8_t> bytes) {
  if (!InBounds(ptr, bytes.size())) return Errno::kFault;
  if (!bytes.empty()) memmove(data_ + ptr, bytes.data(), bytes.size());
  return Errno::kSuccess;
}

Errno GuestMemory::WriteString(uint64_t ptr, std::string_view s) {
  return WriteBytes(ptr,
                    std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

Errno GuestMemory::Zero(uint64_t ptr, uint64_t len) {
  if (!InBounds(ptr, len)) return Errno::kFault;
  if (len != 0) memset(data_ + ptr, 0, len);
  return Errno::kSuccess;
}

Errno ReadIovecs(GuestMemory& mem, uint32_t iovs, uint32_t count, std::span<GuestBuffer> storage,
                 std::span<GuestBuffer>* out) {
  if (count > kMaxIovecs || count > storage.size()) return Errno::kInval;
  if (!mem.InBounds(iovs, uint64_t(count) * abi::kIovecSize)) return Errno::kFault;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t buf = 0, len = 0;
    AMP_WASI_TRY(mem.Read32(iovs + i * abi::kIovecSize, &buf));
    AMP_WASI_TRY(mem.Read32(iovs + i * abi::kIovecSize + 4, &len));
    AMP_WASI_TRY(mem.Bytes(buf, len, &storage[i]));
  }
  *out = storage.first(count);
  return Errno::kSuccess;
}

}  // namespace ampoule::wasi
