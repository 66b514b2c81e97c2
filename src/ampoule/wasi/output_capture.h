// Captured guest output (stdout or stderr) with a size cap.
//
// The guest's writes are kept up to `cap` bytes; anything past the cap is
// counted and dropped, and the capture remembers that it was truncated. The
// guest is always told its write succeeded in full, so a flood of output
// neither fails nor changes the guest's behaviour: only the record is cut.
// An optional sink sees every kept byte as it arrives (for live display).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace ampoule::wasi {

using OutputSink = std::function<void(std::span<const uint8_t> bytes)>;

class OutputCapture {
 public:
  explicit OutputCapture(uint64_t cap, OutputSink sink = nullptr)
      : cap_(cap), sink_(std::move(sink)) {}

  // Records one write of `bytes`; keeps what fits under the cap.
  void Write(std::span<const uint8_t> bytes);

  const std::string& data() const { return data_; }
  // Moves the kept bytes out; the counters stay as they were.
  std::string TakeData() { return std::move(data_); }
  uint64_t cap() const { return cap_; }
  // Every byte the guest wrote, kept or not.
  uint64_t total_bytes() const { return total_; }
  // Bytes kept (at most cap()).
  uint64_t kept_bytes() const { return kept_; }
  bool truncated() const { return total_ > kept_; }

 private:
  uint64_t cap_;
  OutputSink sink_;
  std::string data_;
  uint64_t total_ = 0;
  uint64_t kept_ = 0;
};

}  // namespace ampoule::wasi
