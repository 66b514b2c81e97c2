// A bounds-checked forward reader over WebAssembly binary bytes (core spec
// 2.0, 5.1-5.2: bytes, LEB128 integers, floats, names).
//
// The reader never reads outside [begin, end). It has a sticky error: the
// first failure records a message and the byte offset where it happened,
// moves the cursor to the end, and every later read returns 0 without
// reading. Callers therefore check ok() once after a group of reads instead
// of after every byte, which keeps the hot instruction loop free of
// per-read status objects. Values returned after a failure are meaningless.
//
// Offsets are module offsets: the reader knows where its first byte sits in
// the whole module, so errors from a sub-reader (a section, a function body)
// still name the byte in the file.
//
// Not thread-safe; one reader per pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ampoule::wasm {

// The spec's error texts, shared by every reader so messages stay uniform.
inline constexpr const char* kUnexpectedEnd = "unexpected end";
inline constexpr const char* kUnexpectedEndOfSection = "unexpected end of section or function";
inline constexpr const char* kTooLong = "integer representation too long";
inline constexpr const char* kTooLarge = "integer too large";
inline constexpr const char* kLengthOutOfBounds = "length out of bounds";
inline constexpr const char* kMalformedUtf8 = "malformed UTF-8 encoding";

class BinaryReader {
 public:
  // Reads [begin, end); `base` is the module offset of `begin`.
  // `eof_message` is reported when a read runs past `end`.
  BinaryReader(const uint8_t* begin, const uint8_t* end, uint32_t base,
               const char* eof_message = kUnexpectedEndOfSection)
      : begin_(begin), p_(begin), end_(end), base_(base), eof_message_(eof_message) {}

  bool ok() const { return error_.empty(); }
  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return size_t(end_ - p_); }
  const uint8_t* pos() const { return p_; }
  // Module offset of the next byte to be read.
  uint32_t offset() const { return base_ + uint32_t(p_ - begin_); }

  // The first failure as "malformed module at byte 0x..: <text>".
  // REQUIRES: !ok()
  const std::string& error() const { return error_; }

  // Records a failure at module offset `at` unless one is already recorded.
  void Fail(uint32_t at, std::string_view text);
  void Fail(std::string_view text) { Fail(offset(), text); }
  // Takes over the failure of a sub-reader (a section, a body), if any.
  void TakeError(const BinaryReader& sub) {
    if (!sub.ok() && ok()) {
      error_ = sub.error_;
      p_ = end_;
    }
  }

  uint8_t ReadU8() {
    if (p_ < end_) return *p_++;
    FailEof();
    return 0;
  }

  // Returns the next byte without consuming it; 0 (and no failure) at end.
  uint8_t PeekU8() const { return p_ < end_ ? *p_ : 0; }

  // u32 LEB128: at most 5 bytes, the unused bits of the 5th must be zero.
  uint32_t ReadU32() {
    if (p_ < end_ && *p_ < 0x80) return *p_++;
    return ReadU32Slow();
  }
  // s32 LEB128: at most 5 bytes, the unused bits of the 5th are sign bits.
  int32_t ReadS32() {
    if (p_ < end_ && *p_ < 0x80) {
      uint8_t b = *p_++;
      return int32_t(uint32_t(b) << 25) >> 25;  // sign-extend bit 6
    }
    return int32_t(ReadSigned(32));
  }
  // s33 LEB128 (block types): at most 5 bytes.
  int64_t ReadS33() { return ReadSigned(33); }
  // s64 LEB128: at most 10 bytes.
  int64_t ReadS64() {
    if (p_ < end_ && *p_ < 0x80) {
      uint8_t b = *p_++;
      return int64_t(uint64_t(b) << 57) >> 57;  // sign-extend bit 6
    }
    return ReadSigned(64);
  }

  // Little-endian fixed-width values (float bit patterns).
  uint32_t ReadFixed32() { return uint32_t(ReadFixed(4)); }
  uint64_t ReadFixed64() { return ReadFixed(8); }

  // Consumes n bytes and returns where they start; nullptr on failure
  // (reported as `eof_message` when n runs past the end).
  const uint8_t* ReadBytes(size_t n) {
    if (n > remaining()) {
      FailEof();
      return nullptr;
    }
    const uint8_t* start = p_;
    p_ += n;
    return start;
  }

  // A name: u32 length, then that many bytes of valid UTF-8. A length past
  // the end is "length out of bounds" (as the reference interpreter says).
  std::string_view ReadName();

  // Moves the cursor to the end without a failure (skipping a payload).
  void SkipToEnd() { p_ = end_; }

 private:
  void FailEof() { Fail(eof_message_); }
  uint32_t ReadU32Slow();
  int64_t ReadSigned(int bits);
  uint64_t ReadFixed(int n);

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  uint32_t base_;
  const char* eof_message_;
  std::string error_;
};

}  // namespace ampoule::wasm
