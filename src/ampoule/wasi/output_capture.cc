#include "ampoule/wasi/output_capture.h"

#include <algorithm>

namespace ampoule::wasi {

void OutputCapture::Write(std::span<const uint8_t> bytes) {
  // total_ saturates rather than wraps: a guest cannot write 2^64 bytes in
  // a run, but the arithmetic should not depend on that.
  total_ = bytes.size() > UINT64_MAX - total_ ? UINT64_MAX : total_ + bytes.size();
  uint64_t room = cap_ > kept_ ? cap_ - kept_ : 0;
  size_t keep = size_t(std::min<uint64_t>(room, bytes.size()));
  if (keep == 0) return;
  data_.append(reinterpret_cast<const char*>(bytes.data()), keep);
  kept_ += keep;
  if (sink_) sink_(bytes.first(keep));
}

}  // namespace ampoule::wasi
