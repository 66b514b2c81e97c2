// BinaryReader's out-of-line parts: the slow LEB128 paths, fixed-width
// reads, names and UTF-8 checking (see binary_reader.h).
#include <cstdio>

#include "ampoule/wasm/binary_reader.h"
#include "core/utf8.h"

namespace ampoule::wasm {

void BinaryReader::Fail(uint32_t at, std::string_view text) {
  if (!error_.empty()) return;
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "malformed module at byte 0x%x: ", unsigned(at));
  error_ = prefix;
  error_ += text;
  p_ = end_;  // every later read fails fast without touching memory
}

uint32_t BinaryReader::ReadU32Slow() {
  uint32_t result = 0;
  for (int i = 0; i < 5; ++i) {
    if (p_ >= end_) {
      FailEof();
      return 0;
    }
    uint8_t b = *p_++;
    if (i == 4) {
      // The 5th byte carries bits 28..31: it may not continue, and its
      // upper three payload bits must be zero.
      if (b & 0x80) {
        Fail(offset() - 1, kTooLong);
        return 0;
      }
      if (b & 0x70) {
        Fail(offset() - 1, kTooLarge);
        return 0;
      }
    }
    result |= uint32_t(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) return result;
  }
  return result;  // not reached: the 5th byte either ends or fails
}

int64_t BinaryReader::ReadSigned(int bits) {
  const int max_bytes = (bits + 6) / 7;
  // Payload bits in the last byte, counting its sign bit.
  const int last_bits = bits - 7 * (max_bytes - 1);
  const uint8_t sign_and_unused = uint8_t(0x7F << (last_bits - 1)) & 0x7F;
  uint64_t result = 0;
  int shift = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p_ >= end_) {
      FailEof();
      return 0;
    }
    uint8_t b = *p_++;
    if (i == max_bytes - 1) {
      if (b & 0x80) {
        Fail(offset() - 1, kTooLong);
        return 0;
      }
      // The bits above the value's width must repeat its sign bit.
      uint8_t top = b & sign_and_unused;
      if (top != 0 && top != sign_and_unused) {
        Fail(offset() - 1, kTooLarge);
        return 0;
      }
    }
    result |= uint64_t(b & 0x7F) << shift;
    shift += 7;
    if (!(b & 0x80)) {
      if (shift < 64 && (b & 0x40)) result |= ~uint64_t(0) << shift;
      return int64_t(result);
    }
  }
  return int64_t(result);  // not reached
}

uint64_t BinaryReader::ReadFixed(int n) {
  if (remaining() < size_t(n)) {
    FailEof();
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(p_[i]) << (8 * i);
  p_ += n;
  return v;
}

std::string_view BinaryReader::ReadName() {
  uint32_t at = offset();
  uint32_t n = ReadU32();
  if (!ok()) return {};
  if (n > remaining()) {
    Fail(at, kLengthOutOfBounds);
    return {};
  }
  const uint8_t* start = p_;
  if (!core::IsValidUtf8(std::string_view(reinterpret_cast<const char*>(start), n))) {
    Fail(at, kMalformedUtf8);
    return {};
  }
  p_ += n;
  return std::string_view(reinterpret_cast<const char*>(start), n);
}


}  // namespace ampoule::wasm
